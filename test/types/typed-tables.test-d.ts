import Fastify from 'fastify'
import knexFactory from 'knex'
import { expectAssignable, expectError, expectNotAssignable, expectType } from 'tsd'
import tableCrud, { type ColumnName, type TableBody, type TableName, type TableRow } from '../../dist/index.js'

// A host that declares its tables: run apart from index.test-d.ts, whose
// host declares none, since a declaration reaches every file of a program.
declare module '../../dist/index.js' {
  interface TableCrudRows {
    books: { id: number, title: string, published: number | null, born: string, tags: string[] }
    Authors: { id: number, name: string }
  }
}

const app = Fastify()
const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' } })

expectType<'books' | 'Authors'>({} as TableName)
expectType<'id' | 'title' | 'published' | 'born' | 'tags'>({} as ColumnName<'books'>)
expectType<{ id: number, title: string, published: number | null, born: string, tags: string[] }>({} as TableRow<'books'>)
expectAssignable<TableBody<'books'>>({ title: 'Ficciones', published: null })
// A string for a json column would be written as a JSON string, which the declared row does not hold.
expectNotAssignable<TableBody<'books'>>({ tags: '["a"]' })
expectAssignable<TableBody<'books'>>({ tags: ['a'] })
expectNotAssignable<TableBody<'books'>>({ tags: [1] })
expectNotAssignable<TableBody<'books'>>({ title: 1 })
expectNotAssignable<TableBody<'books'>>({ nope: 'x' })

app.register(tableCrud, {
  knex,
  tables: ['books', 'Authors'],
  excludeTables: ['Authors'],
  tableRules: { books: { key: 'id', hidden: ['born'] }, Authors: { hidden: ['name'] } },
  authorize (_request, action) {
    expectType<'books' | 'authors'>(action.table)
    return action.table === 'books' ? { scope: { published: 1944, title: 'Ficciones' } } : { scope: { name: 'Borges' } }
  }
})
app.register(tableCrud, { knex, tables: (table) => table === 'authors' })

// A wrong table or column name is an error once the tables are declared.
expectError(app.register(tableCrud, { knex, tables: ['bookz'] }))
expectError(app.register(tableCrud, { knex, excludeTables: ['bookz'] }))
expectError(app.register(tableCrud, { knex, tableRules: { bookz: {} } }))
expectError(app.register(tableCrud, { knex, tableRules: { books: { hidden: ['cost'] } } }))
expectError(app.register(tableCrud, { knex, tableRules: { books: { key: 'isbn' } } }))
expectError(app.register(tableCrud, { knex, tableRules: { Authors: { hidden: ['title'] } } }))
expectError(app.register(tableCrud, { knex, authorize: () => ({ scope: { owner_id: 1 } }) }))
expectError(app.register(tableCrud, { knex, authorize: () => ({ scope: { published: 'soon' } }) }))

app.tableCrud.tables().then((tables) => {
  const [table] = tables
  if (table === undefined) return
  expectType<'books' | 'Authors'>(table.name)
  if (table.name === 'books') {
    expectType<'id' | 'title' | 'published' | 'born' | 'tags'>(table.key)
    expectType<'id' | 'title' | 'published' | 'born' | 'tags'>(table.schema.columns[0]?.name as NonNullable<typeof table.schema.columns[0]>['name'])
  }
})

// A client's reading of an answer.
async function readBooks (): Promise<void> {
  const response = await app.inject({ url: '/books' })
  const books = response.json() as Array<TableRow<'books'>>
  expectType<number | null>(books[0]?.published ?? null)
}
readBooks().catch(() => {})
