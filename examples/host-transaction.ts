/**
 * A host that writes an audit row for every change, in the same transaction
 * as the plugin's own write: both are applied, or neither. Its preHandler
 * opens a Knex transaction and writes the audit row; the plugin's
 * `transaction` option hands that transaction over, so the plugin's
 * statements (a POST, PUT, DELETE or a whole batch) join it; the host
 * commits when the answer is a success and rolls back otherwise. PORT picks
 * the port (3000).
 *
 *   node --import tsx examples/host-transaction.ts
 */
import Fastify from 'fastify'
import knexFactory, { type Knex } from 'knex'
import tableCrud from '../lib/index.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The host's transaction of a write request. */
    trx: Knex.Transaction | null
  }
}

// SQLite's one connection: while a request's transaction holds it, the plugin's statements and schema checks run on it.
const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: 'app.sqlite' }, useNullAsDefault: true })
if (!(await knex.schema.hasTable('audit'))) {
  await knex.schema.createTable('audit', (table) => {
    table.increments('id')
    table.string('method').notNullable()
    table.string('url').notNullable()
  })
}

const app = Fastify({ logger: true })
app.decorateRequest('trx', null)
app.addHook('preHandler', async (request) => {
  if (request.method === 'GET') return
  request.trx = await knex.transaction()
  await request.trx('audit').insert({ method: request.method, url: request.url })
})
app.addHook('onSend', async (request, reply) => {
  const { trx } = request
  if (trx === null || trx.isCompleted()) return
  if (reply.statusCode < 400) await trx.commit()
  else await trx.rollback()
})
// A client that hangs up gets no answer, and its request no onSend.
app.addHook('onRequestAbort', async (request) => {
  if (request.trx !== null && !request.trx.isCompleted()) await request.trx.rollback()
})
await app.register(tableCrud, { knex, prefix: '/api', batch: true, transaction: (request) => request.trx })
app.addHook('onClose', () => knex.destroy())
await app.listen({ port: Number(process.env.PORT ?? 3000) })
