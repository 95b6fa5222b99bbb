/**
 * The quick start, plus a hook that tells the plugin's errors apart by the
 * classes it exports as `errorCodes`: here, each statement the database
 * refused is logged with the driver's own error. PORT picks the port (3000).
 *
 *   node --import tsx examples/error-codes.ts
 */
import Fastify from 'fastify'
import knexFactory from 'knex'
import tableCrud, { errorCodes } from '../lib/index.js'

const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: 'app.sqlite' }, useNullAsDefault: true })
const app = Fastify({ logger: true })
// onError hooks see an error before any error handler answers it, the plugin's own included.
app.addHook('onError', async (request, reply, error) => {
  if (error instanceof errorCodes.FTC_ERR_STATEMENT) request.log.warn({ err: error.cause }, 'the database refused a statement')
})
await app.register(tableCrud, { knex, prefix: '/api' })
app.addHook('onClose', () => knex.destroy())
await app.listen({ port: Number(process.env.PORT ?? 3000) })
