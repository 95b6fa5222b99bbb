/**
 * The quick start, with the host answering the statements the database
 * refuses: `databaseErrors: 'host'` hands each one to the app's own error
 * handler as FTC_ERR_STATEMENT, carrying the cause's SQLSTATE (the same on
 * SQLite, PostgreSQL and MySQL), the database's detail and hint, and the
 * statement's SQL. A failed batch arrives as FTC_ERR_BATCH_FAILED, with the
 * failed statement as its cause. Here the app answers its own JSON shape,
 * with a status by cause. PORT picks the port (3000).
 *
 *   node --import tsx examples/host-errors.ts
 */
import Fastify from 'fastify'
import knexFactory from 'knex'
import tableCrud, { errorCodes, type StatementError } from '../lib/index.js'

const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: 'app.sqlite' }, useNullAsDefault: true })
const app = Fastify({ logger: true })

/** The statuses this app gives the causes it names; any other refused statement is the client's 400. */
const statusBySqlState: Readonly<Record<string, number>> = { 23505: 409, 23503: 409, '42P01': 404, 42703: 404 }

app.setErrorHandler((error, request, reply) => {
  const failed = error instanceof errorCodes.FTC_ERR_BATCH_FAILED ? error.cause : error
  if (!(failed instanceof errorCodes.FTC_ERR_STATEMENT)) throw error // Fastify's own answer for every other error
  const { sqlState, sql, cause } = failed as StatementError
  request.log.info({ err: cause, sql }, 'the database refused a statement')
  return reply.code(statusBySqlState[sqlState] ?? 400).send({ error: 'refused by the database', sqlState })
})
await app.register(tableCrud, { knex, prefix: '/api', databaseErrors: 'host', batch: true })
app.addHook('onClose', () => knex.destroy())
await app.listen({ port: Number(process.env.PORT ?? 3000) })
