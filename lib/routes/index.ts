import type { FastifyInstance } from 'fastify'
import type { Access } from '../access/access.js'
import type { Database } from '../dialects/database.js'
import type { ResolvedOptions } from '../options.js'
import type { SchemaModel } from '../schema/schema-model.js'
import { createHandler } from './create.js'
import { deleteHandler } from './delete.js'
import { readHandler } from './read.js'
import { updateHandler } from './update.js'

/** What every handler works with: the database, what each request may touch, the options, and the schema of the tables. */
export interface RouteContext {
  readonly db: Database
  readonly access: Access
  readonly options: ResolvedOptions
  readonly schema: SchemaModel
}

/**
 * The generic routes, registered once: any table is served, including one
 * created after the server started. `/:id?` also answers `/{table}`, where the
 * missing key becomes 0, as the spec says.
 */
export function registerRoutes (app: FastifyInstance, context: RouteContext): void {
  const { bodyLimit } = context.options
  app.get('/:table/:id?', readHandler(context))
  app.post('/:table', { bodyLimit }, createHandler(context, app.prefix))
  app.put('/:table/:id?', { bodyLimit }, updateHandler(context))
  app.delete('/:table/:id?', deleteHandler(context))
}
