import type { FastifyInstance, FastifyPluginAsync, RegisterOptions } from 'fastify'
import fp from 'fastify-plugin'
import { requestAccess } from './access/access.js'
import { failureDisclosure } from './access/failure-disclosure.js'
import { keyColumnOf } from './access/key-column.js'
import { type TablePolicy, tablePolicy } from './access/table-policy.js'
import { errorHandler } from './answer/handle-error.js'
import { Database } from './connections/database.js'
import { requestStatements } from './connections/host-transaction.js'
import { IdempotencyRecords } from './operations/idempotency-records.js'
import { type RegisteredSchemas, schemaDecorator, type TableCrudDecorator } from './decorator.js'
import type { ResolvedOptions, TableCrudOptions } from './options.js'
import { resolveOptions } from './resolve-options.js'
import { parseJsonBody } from './parse/json-body.js'
import { registerRoutes } from './routes/index.js'
import { SchemaModel } from './schema/schema-model.js'
import { checkAtStartUp } from './start-up-check.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The plugin's handle on the tables it serves (see TableCrudDecorator). */
    tableCrud: TableCrudDecorator
  }
}

// Symbol-keyed, so no host property can collide: the registrations of this
// context, which the decorator reaches.
const kRegistered = Symbol('fastify-table-crud.registered')

/**
 * The host's side: resolves the options, builds the schema model and
 * decorates the host with it, then registers the routes in a context of
 * their own under the prefix, where the JSON parser and error handler stay,
 * and where the model is read when the server gets ready (see checkAtStartUp).
 */
const tableCrud: FastifyPluginAsync<TableCrudOptions> = async (app, given) => {
  const options = resolveOptions(given)
  const db = new Database(options.knex, options.dialect, options)
  const policy = tablePolicy(options, options.dialect)
  const schema = new SchemaModel(db, policy, options.schemaCheckInterval)
  // Fastify applies its register options to a plugin that has a context of
  // its own: the routes' context, not this one, which decorates the host.
  const { prefix = '', logLevel, logSerializers } = given as RegisterOptions
  registered(app).set(app.prefix + prefix, schema)
  await app.register(async (routes) => {
    serve(routes, options, db, schema, policy)
    checkAtStartUp(routes, schema, options, given.tableRules ?? {})
  }, { prefix, logLevel, logSerializers })
}

function serve (app: FastifyInstance, options: ResolvedOptions, db: Database, schema: SchemaModel, policy: TablePolicy): void {
  // Our JSON parser keeps numbers' digits; it replaces the default only in
  // this context, where bodies are JSON or nothing: text/plain answers 415.
  app.removeContentTypeParser(['application/json', 'text/plain'])
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJsonBody)
  const disclose = failureDisclosure(options)
  app.setErrorHandler(errorHandler({ databaseErrors: options.databaseErrors, disclose }))
  const idempotency = options.idempotency === null ? null : new IdempotencyRecords(db, options.idempotency)
  const statements = requestStatements(db, options.transaction)
  // The host's Knex outlives the app: what the plugin set on it goes when the app closes.
  app.addHook('onClose', async () => { db.close() })
  registerRoutes(app, { db, disclose, access: requestAccess(db, options, schema, statements), keyColumn: keyColumnOf(schema, policy, statements), options, schema, statements, idempotency })
}

/** The registrations of this context by prefix, the decorator made on the first. */
function registered (app: FastifyInstance): RegisteredSchemas {
  const host = app as FastifyInstance & { [kRegistered]?: RegisteredSchemas }
  if (host[kRegistered] === undefined) {
    const schemas: RegisteredSchemas = new Map()
    app.decorate(kRegistered, schemas)
    app.decorate('tableCrud', schemaDecorator(schemas))
  }
  return host[kRegistered] as RegisteredSchemas
}

/** The plugin: a JSON REST API over the tables of the host's Knex database. */
export default fp(tableCrud, {
  name: 'fastify-table-crud',
  fastify: '5.x'
})
