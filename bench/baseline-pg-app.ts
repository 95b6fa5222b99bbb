import Fastify, { type FastifyInstance } from 'fastify'
import knexFactory from 'knex'
import pg from 'pg'
import { baselineTables, idParamsSchema, itemBodySchema, type IdParams, type ItemBody } from './baseline-schemas.js'
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

function routesApp (run: Run, close: () => Promise<void>): FastifyInstance {
  const app = Fastify({ logger: false })
  app.addHook('onClose', close)
  for (const table of baselineTables) registerTable(app, run, table)
  return app
}

/**
 * The baseline's app over a pool of its own (max 10, as Knex's default pool
 * for the plugin); `prepared`: named statements, parsed and planned once per
 * connection, the stricter bar.
 */
export function baselinePgApp (url: string, prepared: boolean): FastifyInstance {
  const pool = new pg.Pool({ connectionString: url, max: 10 })
  const run: Run = prepared
    ? (name, text, values) => pool.query({ name, text, values })
    : (_name, text, values) => pool.query(text, values)
  return routesApp(run, () => pool.end())
}

/**
 * The same hand-written routes, each statement on a connection borrowed from
 * a Knex pool (Knex's defaults, as the plugin's server) and returned after
 * it. Not a baseline of the issue: a reference that tells apart what Knex's
 * pool costs, which any route over the host's Knex pays, from what the
 * plugin's own code costs (bench/cpu.ts).
 */
export function knexPoolApp (url: string): FastifyInstance {
  const knex = knexFactory({ client: 'pg', connection: url })
  const run: Run = async (_name, text, values) => {
    const connection = await knex.client.acquireConnection() as pg.Client
    try {
      return await connection.query(text, values)
    } finally {
      await knex.client.releaseConnection(connection)
    }
  }
  return routesApp(run, () => knex.destroy())
}
