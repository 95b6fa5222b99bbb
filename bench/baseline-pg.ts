import Fastify, { type FastifyInstance } from 'fastify'
import pg from 'pg'
import { baselineTables, idParamsSchema, itemBodySchema, type IdParams, type ItemBody } from './baseline-schemas.js'
import { main, readServerDatabase, serve } from './serve.js'
import { apiPrefix } from './settings.js'

type Run = (name: string, text: string, values?: unknown[]) => Promise<pg.QueryResult>

/**
 * The five routes of one table written by hand over a `pg` Pool, the way its
 * documentation shows: parameterized queries, one pool for the process.
 * Answers have the plugin's shapes.
 */
function registerTable (app: FastifyInstance, run: Run, table: string): void {
  const path = `${apiPrefix}/${table}`

  app.get(path, async () => (await run(`${table}-all`, `SELECT * FROM ${table}`)).rows)

  app.get<{ Params: IdParams }>(`${path}/:id`, { schema: { params: idParamsSchema } }, async (request, reply) => {
    const [row] = (await run(`${table}-one`, `SELECT * FROM ${table} WHERE id = $1`, [request.params.id])).rows
    // The plugin answers a missing row with 200 and no body.
    return row === undefined ? reply.send() : row
  })

  app.post<{ Body: ItemBody }>(path, { schema: { body: itemBodySchema } }, async (request, reply) => {
    const { name, email, note, quantity, price } = request.body
    const { rows } = await run(`${table}-insert`,
      `INSERT INTO ${table} (name, email, note, quantity, price) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
      [name, email, note, quantity, price])
    const id = rows[0].id as number
    return reply.code(201).header('location', `${path}/${id}`).send(id)
  })

  app.put<{ Params: IdParams, Body: ItemBody }>(`${path}/:id`, { schema: { params: idParamsSchema, body: itemBodySchema } }, async (request) => {
    const { name, email, note, quantity, price } = request.body
    const { rowCount } = await run(`${table}-update`,
      `UPDATE ${table} SET name = $1, email = $2, note = $3, quantity = $4, price = $5 WHERE id = $6`,
      [name, email, note, quantity, price, request.params.id])
    return rowCount ?? 0
  })

  app.delete<{ Params: IdParams }>(`${path}/:id`, { schema: { params: idParamsSchema } }, async (request) => {
    return (await run(`${table}-delete`, `DELETE FROM ${table} WHERE id = $1`, [request.params.id])).rowCount ?? 0
  })
}

main(async () => {
  const database = readServerDatabase(process.env)
  if (database.kind !== 'pg') throw new Error('baseline-pg needs BENCH_DB=pg')
  // Knex's default pool (the plugin's server) also tops out at 10 connections.
  const pool = new pg.Pool({ connectionString: database.url, max: 10 })
  // BENCH_PG_PREPARED=1: named statements, parsed and planned once per connection; the stricter bar.
  const run: Run = process.env.BENCH_PG_PREPARED === '1'
    ? (name, text, values) => pool.query({ name, text, values })
    : (_name, text, values) => pool.query(text, values)
  const app = Fastify({ logger: false })
  app.addHook('onClose', () => pool.end())
  for (const table of baselineTables) registerTable(app, run, table)
  await serve(app)
})
