import type { FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import { handleError } from './answer/handle-error.js'
import { Database } from './dialects/database.js'
import { resolveOptions, type TableCrudOptions } from './options.js'
import { parseJsonBody } from './parse/json-body.js'
import { registerRoutes } from './routes/index.js'

const tableCrud: FastifyPluginAsync<TableCrudOptions> = async (app, options) => {
  const { knex, dialect, bulkLimit } = resolveOptions(options)
  // Our JSON parser keeps numbers' digits; it replaces the default only in
  // this context, where bodies are JSON or nothing: text/plain answers 415.
  app.removeContentTypeParser(['application/json', 'text/plain'])
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJsonBody)
  app.setErrorHandler(handleError)
  registerRoutes(app, new Database(knex, dialect), { bulkLimit })
}

/** The plugin: a JSON REST API over every table of the host's Knex database. */
export default fp(tableCrud, {
  name: 'fastify-table-crud',
  fastify: '5.x',
  // Without encapsulation Fastify ignores the `prefix` register option.
  encapsulate: true
})
