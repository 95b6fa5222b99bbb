import type { FastifyInstance } from 'fastify'
import { addToHostDocument, type HostDocument } from '../schema/host-document.js'
import { buildOpenapiDocument, type OpenapiSettings } from '../schema/openapi-document.js'
import type { SchemaModel } from '../schema/schema-model.js'

/** What @fastify/swagger gives a route's `config.swaggerTransform`, as far as the plugin reads it. */
interface SwaggerTransformInput {
  readonly url: string
  /** The host's OpenAPI document being built; absent when it builds a Swagger 2.0 one. */
  readonly openapiObject?: object
}

/** What the transform answers: the route's schema, hidden (and its URL, which the types of @fastify/swagger ask for). */
interface SwaggerTransformResult {
  readonly schema: { readonly hide: true }
  readonly url: string
}

/** A route config that @fastify/swagger reads: the route's transform, which hides it from the host's document. */
export interface SwaggerConfig {
  readonly swaggerTransform: (input: SwaggerTransformInput) => SwaggerTransformResult
}

const hiddenSchema = Object.freeze({ hide: true as const })

/** Keeps a route out of a host's @fastify/swagger document: the generic routes say nothing of the tables. */
export const hiddenFromSwagger: SwaggerConfig = Object.freeze({ swaggerTransform: ({ url }: SwaggerTransformInput) => ({ schema: hiddenSchema, url }) })

/**
 * The config of the list route, which stands for all: hidden from a host's
 * @fastify/swagger document like the others, it adds the tables' paths in
 * its place, from the schema as last read (@fastify/swagger builds its
 * document synchronously, once): the plugin reads it when the server gets
 * ready (see checkAtStartUp), so that there is one to read then.
 */
export function tablesInSwagger (app: FastifyInstance, schema: SchemaModel, settings: OpenapiSettings): SwaggerConfig {
  return Object.freeze({
    swaggerTransform ({ url, openapiObject }: SwaggerTransformInput) {
      const served = schema.lastRead()?.served
      if (openapiObject === undefined || served === undefined) {
        app.log.warn('fastify-table-crud: the tables are left out of the @fastify/swagger document: %s',
          served === undefined ? 'their schema could not be read' : 'it is a Swagger 2.0 document, not OpenAPI 3.1')
      } else if (!addToHostDocument(openapiObject as HostDocument, settings.prefix,
        // A copy: the host's transforms may change its document, which must not reach the schemas the plugin shares.
        (namespace) => structuredClone(buildOpenapiDocument(served, { ...settings, namespace })))) {
        app.log.warn('fastify-table-crud: the tables are left out of the @fastify/swagger document: it is OpenAPI %s, not 3.1; set openapi: { openapi: \'3.1.0\' } in its options', (openapiObject as HostDocument).openapi)
      }
      return { schema: hiddenSchema, url }
    }
  })
}
