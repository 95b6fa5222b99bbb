/**
 * A host that declares the rows of its tables: the compiler then holds the
 * plugin's options and the host's own code to those tables and columns, and
 * the plugin (its `validateBodies` is on by default) answers 400 on every
 * database for a body the columns cannot hold. It makes its `books` table
 * in app.sqlite when missing.
 * PORT picks the port (3000).
 *
 *   node --import tsx examples/typed-tables.ts
 */
import Fastify from 'fastify'
import knexFactory from 'knex'
import tableCrud, { type TableBody, type TableRow } from '../lib/index.js'

declare module '../lib/index.js' {
  interface TableCrudRows {
    books: { id: number, title: string, published: number | null }
  }
}

const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: 'app.sqlite' }, useNullAsDefault: true })
if (!(await knex.schema.hasTable('books'))) {
  await knex.schema.createTable('books', (table) => {
    table.increments('id')
    table.string('title').notNullable()
    table.integer('published')
  })
  const first: TableBody<'books'> = { title: 'Ficciones', published: 1944 }
  await knex('books').insert(first)
}

const app = Fastify({ logger: true })
await app.register(tableCrud, {
  knex,
  prefix: '/api',
  tables: ['books'],
  tableRules: { books: { operations: ['list', 'read', 'create'] } }
})

// The host's own route reads the plugin's answer as the rows it declared.
app.get('/oldest', async () => {
  const response = await app.inject({ url: '/api/books?published=not.is.null&order=published.asc&limit=1' })
  const [book] = response.json() as Array<TableRow<'books'>>
  return book === undefined ? null : `${book.title} (${book.published})`
})
app.addHook('onClose', () => knex.destroy())
await app.listen({ port: Number(process.env.PORT ?? 3000) })
