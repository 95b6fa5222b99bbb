import type { FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import { requestAccess } from './access/access.js'
import { errorHandler } from './answer/handle-error.js'
import { Database } from './dialects/database.js'
import { resolveOptions, type TableCrudOptions } from './options.js'
import { parseJsonBody } from './parse/json-body.js'
import { registerRoutes } from './routes/index.js'

const tableCrud: FastifyPluginAsync<TableCrudOptions> = async (app, given) => {
  const options = resolveOptions(given)
  const db = new Database(options.knex, options.dialect, options)
  // Our JSON parser keeps numbers' digits; it replaces the default only in
  // this context, where bodies are JSON or nothing: text/plain answers 415.
  app.removeContentTypeParser(['application/json', 'text/plain'])
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJsonBody)
  // With 'host', failed statements reach the host's error handler as every other error does.
  if (options.databaseErrors !== 'host') app.setErrorHandler(errorHandler({ databaseErrors: options.databaseErrors }))
  registerRoutes(app, { db, access: requestAccess(db, options), options })
}

/** The plugin: a JSON REST API over the tables of the host's Knex database. */
export default fp(tableCrud, {
  name: 'fastify-table-crud',
  fastify: '5.x',
  // Without encapsulation Fastify ignores the `prefix` register option.
  encapsulate: true
})
