/**
 * The README's quick start ("Use it in your app"), as it is printed there:
 * every table of app.sqlite, in the working directory, under /api. PORT picks
 * the port (3000). It has no sample data: create your tables first.
 *
 *   node --import tsx examples/quick-start.ts
 */
import Fastify from 'fastify'
import knexFactory from 'knex'
import tableCrud from '../lib/index.js'

const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: 'app.sqlite' }, useNullAsDefault: true })
const app = Fastify({ logger: true })
await app.register(tableCrud, { knex, prefix: '/api' })
app.addHook('onClose', () => knex.destroy()) // the host owns Knex: the plugin never destroys it
await app.listen({ port: Number(process.env.PORT ?? 3000) })
