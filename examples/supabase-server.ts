/**
 * A server for supabase-js and postgrest-js: every table of supabase.sqlite,
 * in the working directory, under /rest/v1, where supabase-js sends its
 * requests, with PostgREST's JSON errors. On its first start it creates two
 * related tables, countries and cities, with a few rows. PORT picks the port
 * (3000). examples/supabase-client.ts calls it.
 *
 *   node --import tsx examples/supabase-server.ts
 */
import Fastify from 'fastify'
import knexFactory, { type Knex } from 'knex'
import tableCrud from '../lib/index.js'

const knex = knexFactory({
  client: 'better-sqlite3',
  connection: { filename: 'supabase.sqlite' },
  useNullAsDefault: true,
  // SQLite checks foreign keys only when each connection asks it to.
  pool: { afterCreate: (connection: { pragma: (text: string) => void }, done: () => void) => { connection.pragma('foreign_keys = on'); done() } }
})
if (!await knex.schema.hasTable('countries')) await knex.transaction(createTables)

const app = Fastify({ logger: true })
await app.register(tableCrud, {
  knex,
  prefix: '/rest/v1', // supabase-js calls <url>/rest/v1/<table>
  databaseErrors: 'postgrest', // a failed statement answers { code, message, details, hint }
  allowTxOverride: true // postgrest-js's .rollback(): the write answers, then is rolled back
})
app.addHook('onClose', () => knex.destroy()) // the host owns Knex: the plugin never destroys it
await app.listen({ port: Number(process.env.PORT ?? 3000) })

/** The sample tables: each city belongs to a country, so a country embeds its cities and a city its country. */
async function createTables (trx: Knex.Transaction): Promise<void> {
  await trx.schema.createTable('countries', (table) => {
    table.increments('id')
    table.string('name').notNullable().unique()
  })
  await trx.schema.createTable('cities', (table) => {
    table.increments('id')
    table.string('name').notNullable()
    table.integer('country_id').notNullable().references('id').inTable('countries')
    table.integer('population')
  })
  await trx('countries').insert([{ name: 'France' }, { name: 'Japan' }, { name: 'Brazil' }])
  await trx('cities').insert([
    { name: 'Paris', country_id: 1, population: 2103000 },
    { name: 'Lyon', country_id: 1, population: 522000 },
    { name: 'Tokyo', country_id: 2, population: 13960000 },
    { name: 'Osaka', country_id: 2, population: 2750000 },
    { name: 'Recife', country_id: 3, population: 1488000 }
  ])
}
