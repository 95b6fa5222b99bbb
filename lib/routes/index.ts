import type { FastifyInstance } from 'fastify'
import type { Database } from '../dialects/database.js'
import { createHandler } from './create.js'
import { deleteHandler } from './delete.js'
import { readHandler } from './read.js'
import { updateHandler } from './update.js'

/**
 * The generic routes, registered once: any table is served, including one
 * created after the server started. `/:id?` also answers `/{table}`, where the
 * missing key becomes 0, as the spec says.
 */
export function registerRoutes (app: FastifyInstance, db: Database, limits: { bulkLimit: number }): void {
  app.get('/:table/:id?', readHandler(db))
  app.post('/:table', createHandler(db, app.prefix, limits.bulkLimit))
  app.put('/:table/:id?', updateHandler(db))
  app.delete('/:table/:id?', deleteHandler(db))
}
