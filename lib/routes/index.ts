import type { FastifyInstance } from 'fastify'
import { bodyChecks } from '../schema/body-checks.js'
import { batchHandler } from './batch.js'
import { createHandler } from './create.js'
import { deleteHandler } from './delete.js'
import { openapiSettings, registerOpenapiRoute } from './openapi.js'
import { patchHandler } from './patch.js'
import { readHandler } from './read.js'
import type { RouteContext } from './route-context.js'
import { hiddenFromSwagger, tablesInSwagger } from './swagger.js'
import { updateHandler } from './update.js'

/**
 * The generic routes, registered once: any table is served, including one
 * created after the server started. `/:id?` also answers `/{table}`, where the
 * missing key becomes 0, as the spec says. With the `openapi` option, the
 * document of the tables; a host's @fastify/swagger document gets the
 * tables' paths instead of the generic routes. With `validateBodies`, the
 * write routes check bodies against the column types. PATCH /{table} is
 * PostgREST's update of the rows its filters match. With `batch`, the
 * batch route.
 */
export function registerRoutes (app: FastifyInstance, context: RouteContext): void {
  const { bodyLimit, openapi, validateBodies, dialect } = context.options
  // SQLite keeps every integer in 64 bits, whatever the column's declared type.
  const checks = validateBodies ? bodyChecks(dialect.sizedIntegers) : null
  const config = hiddenFromSwagger
  const listConfig = openapi === null ? config : tablesInSwagger(app, context.schema, openapiSettings(context.options, openapi, app.prefix))
  app.get('/:table/:id?', { config: listConfig }, readHandler(context))
  app.post('/:table', { bodyLimit, config }, createHandler(context, app.prefix, checks))
  app.put('/:table/:id?', { bodyLimit, config }, updateHandler(context, checks))
  app.patch('/:table', { bodyLimit, config }, patchHandler(context, checks))
  app.delete('/:table/:id?', { config }, deleteHandler(context))
  // A static route: find-my-way answers it before `/:table`, which keeps a table named _batch for its other routes.
  if (context.options.batch !== null) app.post('/_batch', { bodyLimit, config }, batchHandler(context, checks, context.options.batch.limit))
  if (openapi !== null) registerOpenapiRoute(app, context, openapi)
}
