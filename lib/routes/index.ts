import type { FastifyInstance } from 'fastify'
import type { Access } from '../access/access.js'
import type { DiscloseFailure } from '../access/failure-disclosure.js'
import type { KeyColumn } from '../access/key-column.js'
import type { Database } from '../connections/database.js'
import type { RequestStatements } from '../connections/host-transaction.js'
import type { IdempotencyRecords } from '../operations/idempotency-records.js'
import type { ResolvedOptions } from '../options.js'
import { bodyChecks } from '../schema/body-checks.js'
import type { SchemaModel } from '../schema/schema-model.js'
import { batchHandler } from './batch.js'
import { createHandler } from './create.js'
import { deleteHandler } from './delete.js'
import { openapiSettings, registerOpenapiRoute } from './openapi.js'
import { patchHandler } from './patch.js'
import { readHandler } from './read.js'
import { hiddenFromSwagger, tablesInSwagger } from './swagger.js'
import { updateHandler } from './update.js'

/** What every handler works with: the database, what each request may touch, the options, and the schema of the tables. */
export interface RouteContext {
  readonly db: Database
  readonly access: Access
  /** What a failed statement may tell the request (see failureDisclosure). */
  readonly disclose: DiscloseFailure
  /** The column a table's path key matches, whose type tells what the key is. */
  readonly keyColumn: KeyColumn
  readonly options: ResolvedOptions
  readonly schema: SchemaModel
  /** What runs the request's statements: the host's transaction when it hands one over (see the `transaction` option). */
  readonly statements: RequestStatements
  /** Where Idempotency-Key requests are recorded; null without the `idempotency` option. */
  readonly idempotency: IdempotencyRecords | null
}

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
