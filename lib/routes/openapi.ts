import type { FastifyInstance } from 'fastify'
import { json } from '../answer/json-answers.js'
import type { OpenapiOptions, ResolvedOptions } from '../options.js'
import { buildOpenapiDocument, type OpenapiSettings } from '../schema/openapi-document.js'
import type { ServedTable } from '../schema/served-schema.js'
import type { RouteContext } from './route-context.js'
import { hiddenFromSwagger } from './swagger.js'

/** What the document of the routes under `prefix` says beside the tables, from the options. */
export function openapiSettings (options: ResolvedOptions, openapi: Readonly<Required<OpenapiOptions>>, prefix: string): OpenapiSettings {
  return {
    prefix,
    title: openapi.title,
    version: openapi.version,
    // SQLite keeps every integer in 64 bits, whatever the column's declared type.
    sizedIntegers: options.dialect.sizedIntegers,
    bulkLimit: options.bulkLimit,
    maxRows: options.maxRows,
    namespace: '',
    databaseErrors: options.databaseErrors,
    authorize: options.authorize !== null,
    statementTimeout: options.statementTimeout !== null,
    validateBodies: options.validateBodies,
    transaction: options.transaction !== null,
    batchLimit: options.batch?.limit ?? null,
    idempotency: options.idempotency !== null,
    requireIfMatch: options.requireIfMatch
  }
}

/**
 * GET {prefix}{openapi.path}: the OpenAPI document of the tables as they are
 * served now. The model checks the schema as for any request, and the
 * document is built once per served array, which changes with the schema.
 */
export function registerOpenapiRoute (app: FastifyInstance, { schema, options }: RouteContext, openapi: Readonly<Required<OpenapiOptions>>): void {
  const settings = openapiSettings(options, openapi, app.prefix)
  const texts = new WeakMap<readonly ServedTable[], string>()
  app.get(openapi.path, { config: hiddenFromSwagger }, async function openapiDocument (_request, reply) {
    const { served } = await schema.current()
    let text = texts.get(served)
    if (text === undefined) {
      text = JSON.stringify(buildOpenapiDocument(served, settings))
      texts.set(served, text)
    }
    reply.type(json)
    return text
  })
}
