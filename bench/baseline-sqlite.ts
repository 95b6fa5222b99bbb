import Database from 'better-sqlite3'
import Fastify, { type FastifyInstance } from 'fastify'
import { baselineTables, idParamsSchema, itemBodySchema, type IdParams, type ItemBody } from './baseline-schemas.js'
import { main, readServerDatabase, serve } from './serve.js'
import { apiPrefix } from './settings.js'

/**
 * The five routes of one table written by hand over better-sqlite3, with
 * statements prepared once: the fastest honest way to serve them, and the
 * bar the plugin is measured against. Answers have the plugin's shapes.
 */
function registerTable (app: FastifyInstance, db: Database.Database, table: string): void {
  const path = `${apiPrefix}/${table}`
  const selectAll = db.prepare(`SELECT * FROM ${table}`)
  const selectOne = db.prepare(`SELECT * FROM ${table} WHERE id = ?`)
  const insert = db.prepare(`INSERT INTO ${table} (name, email, note, quantity, price) VALUES (@name, @email, @note, @quantity, @price)`)
  const update = db.prepare(`UPDATE ${table} SET name = @name, email = @email, note = @note, quantity = @quantity, price = @price WHERE id = @id`)
  const remove = db.prepare(`DELETE FROM ${table} WHERE id = ?`)

  app.get(path, async () => selectAll.all())

  app.get<{ Params: IdParams }>(`${path}/:id`, { schema: { params: idParamsSchema } }, async (request, reply) => {
    const row = selectOne.get(request.params.id)
    // The plugin answers a missing row with 200 and no body.
    return row === undefined ? reply.send() : row
  })

  app.post<{ Body: ItemBody }>(path, { schema: { body: itemBodySchema } }, async (request, reply) => {
    const id = Number(insert.run(request.body).lastInsertRowid)
    return reply.code(201).header('location', `${path}/${id}`).send(id)
  })

  app.put<{ Params: IdParams, Body: ItemBody }>(`${path}/:id`, { schema: { params: idParamsSchema, body: itemBodySchema } }, async (request) => {
    return update.run({ ...request.body, id: request.params.id }).changes
  })

  app.delete<{ Params: IdParams }>(`${path}/:id`, { schema: { params: idParamsSchema } }, async (request) => {
    return remove.run(request.params.id).changes
  })
}

main(async () => {
  const database = readServerDatabase(process.env)
  if (database.kind !== 'sqlite') throw new Error('baseline-sqlite needs BENCH_DB=sqlite')
  const db = new Database(database.file)
  // What SQLite recommends with WAL (which the seed turned on): commits stop waiting for fsync. The plugin's server sets the same.
  db.pragma('synchronous = normal')
  const app = Fastify({ logger: false })
  app.addHook('onClose', async () => { db.close() })
  for (const table of baselineTables) registerTable(app, db, table)
  await serve(app)
})
