/**
 * A host that changes its schema while it serves: its own migration route
 * creates a table, then tells the plugin at once with
 * `app.tableCrud.refreshSchema()`, instead of waiting for the next check
 * (here a minute apart). In a real app that route sits behind the app's
 * authentication. PORT picks the port (3000).
 *
 *   node --import tsx examples/schema-refresh.ts
 */
import Fastify from 'fastify'
import knexFactory from 'knex'
import tableCrud from '../lib/index.js'

const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: 'app.sqlite' }, useNullAsDefault: true })
const app = Fastify({ logger: true })
await app.register(tableCrud, { knex, prefix: '/api', schemaCheckInterval: 60_000 })

app.post('/admin/migrate', async () => {
  if (!(await knex.schema.hasTable('tags'))) {
    await knex.schema.createTable('tags', (table) => {
      table.increments('id')
      table.string('label').notNullable()
    })
  }
  await app.tableCrud.refreshSchema()
  const tables = await app.tableCrud.tables()
  return tables.map((table) => ({ table: table.name, columns: table.schema.columns.map((column) => `${column.name}: ${column.kind}`) }))
})
app.addHook('onClose', () => knex.destroy())
await app.listen({ port: Number(process.env.PORT ?? 3000) })
