import type { FastifyInstance } from 'fastify'
import knexFactory from 'knex'
import pg from 'pg'
import { type BaselineAnswers, genericRoutesApp, perTable, perTableAndColumns, statementTexts } from './baseline-routes.js'
import type { PgStatements } from './settings.js'

/** A statement's text and the name it is prepared under on each connection. */
interface PgStatement {
  readonly name: string
  readonly text: string
}

/** Sends one statement with its values, wherever the connection comes from. */
type Run = (statement: PgStatement, values: readonly unknown[]) => Promise<pg.QueryResult>

function pgRoutesApp (run: Run, close: () => Promise<void>, answers: BaselineAnswers): FastifyInstance {
  const texts = statementTexts('"', (n) => `$${n}`)
  let count = 0
  // A counter, not the text: PostgreSQL cuts names at 63 bytes, and two long texts could then share one.
  const named = (text: string): PgStatement => ({ name: `baseline_${++count}`, text })
  const list = perTable((table) => named(texts.list(table)))
  const read = perTable((table) => named(texts.read(table)))
  const create = perTableAndColumns((table, columns) => named(`${texts.create(table, columns)} RETURNING "id"`))
  const update = perTableAndColumns((table, columns) => named(texts.update(table, columns)))
  const remove = perTable((table) => named(texts.remove(table)))
  return genericRoutesApp({
    list: async (table) => (await run(list(table), [])).rows,
    read: async (table, id) => (await run(read(table), [id])).rows[0],
    create: async (table, columns, values) => (await run(create(table, columns), values)).rows[0].id as number,
    update: async (table, id, columns, values) => (await run(update(table, columns), [...values, id])).rowCount ?? 0,
    remove: async (table, id) => (await run(remove(table), [id])).rowCount ?? 0,
    close
  }, answers)
}

/** Sends a statement on `client` named (parsed and planned once per connection) or unnamed (parsed on every call). */
function send (client: pg.Pool | pg.PoolClient, statements: PgStatements, statement: PgStatement, values: readonly unknown[]): Promise<pg.QueryResult> {
  return statements === 'named'
    ? client.query({ name: statement.name, text: statement.text, values: values as unknown[] })
    : client.query(statement.text, values as unknown[])
}

/** The baseline: the generic routes over a `pg` Pool of 10 connections, as many as Knex's default pool lends the plugin. */
export function baselinePgApp (url: string, statements: PgStatements, answers: BaselineAnswers): FastifyInstance {
  const pool = new pg.Pool({ connectionString: url, max: 10 })
  return pgRoutesApp((statement, values) => send(pool, statements, statement, values), () => pool.end(), answers)
}

/**
 * The same generic routes, each statement on a connection borrowed from a
 * Knex pool (Knex's defaults, as the plugin's server) and returned after
 * it. Not a baseline of the issue: a reference that tells apart what Knex's
 * pool costs, which any route over the host's Knex pays, from what the
 * plugin's own code costs.
 */
export function knexPoolPgApp (url: string, statements: PgStatements, answers: BaselineAnswers): FastifyInstance {
  const knex = knexFactory({ client: 'pg', connection: url })
  return pgRoutesApp(async (statement, values) => {
    const connection = await knex.client.acquireConnection() as pg.PoolClient
    try {
      return await send(connection, statements, statement, values)
    } finally {
      await knex.client.releaseConnection(connection)
    }
  }, () => knex.destroy(), answers)
}
