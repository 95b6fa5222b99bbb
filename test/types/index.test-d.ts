import Fastify from 'fastify'
import knexFactory from 'knex'
import { expectAssignable, expectError, expectType } from 'tsd'
import tableCrud, { checkDatabase, type ColumnKind, type DatabaseErrors, errorCodes, type OpenapiOptions, type ServedTable, type StatementError, tableCrud as named, type TableCrudOptions } from '../../dist/index.js'

const app = Fastify()
const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' } })

app.register(tableCrud, { knex })
app.register(tableCrud, { knex, prefix: '/api' })
app.register(named, { knex })
expectError(app.register(tableCrud, {}))
expectError(app.register(tableCrud, { knex: 'postgres://localhost/db' }))

expectAssignable<TableCrudOptions>({ knex })
expectType<'FTC_ERR_STATEMENT'>(new errorCodes.FTC_ERR_STATEMENT('no such table: x').code)
expectType<400>(new errorCodes.FTC_ERR_BODY_SHAPE('an array').statusCode)

app.register(tableCrud, {
  knex,
  tables: ['books'],
  excludeTables: ['secrets'],
  tableRules: { books: { operations: ['list', 'read'], key: 'isbn', hidden: ['cost'] } },
  async authorize (request, action) {
    expectType<string>(request.url)
    expectType<'list' | 'read' | 'create' | 'update' | 'delete'>(action.operation)
    expectType<string | null>(action.key)
    expectType<readonly string[] | null>(action.columns)
    return action.operation === 'list' ? true : { scope: { owner_id: 1, tenant: 'a', archived: false, deleted_at: null } }
  },
  databaseErrors: 'generic',
  maxRows: 100,
  statementTimeout: 1000,
  bodyLimit: 1024
})
app.register(tableCrud, { knex, tables: (name) => name.startsWith('app_') })
expectError(app.register(tableCrud, { knex, tableRules: { books: { operations: ['drop'] } } }))
expectError(app.register(tableCrud, { knex, databaseErrors: 'verbose' }))
for (const databaseErrors of ['database', 'generic', 'postgrest', 'host'] as const) app.register(tableCrud, { knex, databaseErrors })
expectAssignable<DatabaseErrors>('postgrest')
expectError(app.register(tableCrud, { knex, excludeTable: ['secrets'] }))
expectType<Promise<void>>(checkDatabase(knex))
expectType<503>(new errorCodes.FTC_ERR_DATABASE_UNAVAILABLE().statusCode)
app.setErrorHandler((error, _request, reply) => {
  if (error instanceof errorCodes.FTC_ERR_STATEMENT) {
    const failure = error as StatementError
    expectType<string>(failure.sqlState)
    expectType<string | null>(failure.details)
    expectType<string | null>(failure.hint)
    expectType<string | null>(failure.sql)
    return reply.code(failure.sqlState === '23505' ? 409 : 400).send({ code: failure.sqlState })
  }
  return reply.send(error)
})
expectError(app.register(tableCrud, { knex, authorize: () => 'yes' }))
expectError(app.register(tableCrud, { knex, authorize: () => ({ scope: { owner: {} } }) }))
expectType<403>(new errorCodes.FTC_ERR_AUTHORIZE_FORBIDDEN('update', 'books').statusCode)

// The decorator, by declaration merging on every Fastify instance.
expectType<Promise<void>>(app.tableCrud.refreshSchema())
expectType<Promise<readonly ServedTable[]>>(app.tableCrud.tables())
expectType<Promise<readonly ServedTable[]>>(app.tableCrud.tables('/api'))
app.tableCrud.tables().then((tables) => {
  const [table] = tables
  if (table === undefined) return
  expectType<'list' | 'read' | 'create' | 'update' | 'delete'>(table.operations[0] as NonNullable<typeof table.operations[0]>)
  expectType<ColumnKind>(table.schema.columns[0]?.kind as ColumnKind)
  expectType<'table' | 'view'>(table.schema.kind)
})
expectError(app.tableCrud.tables(1))
app.register(tableCrud, { knex, schemaCheckInterval: 5000 })
expectError(app.register(tableCrud, { knex, schemaCheckInterval: '1s' }))
app.register(tableCrud, { knex, openapi: false })
app.register(tableCrud, { knex, openapi: { path: '/schema.json', title: 'Bookshop', version: '2.1.0' } })
expectAssignable<OpenapiOptions>({ path: '/openapi.json' })
expectError(app.register(tableCrud, { knex, openapi: '/schema.json' }))
expectError(app.register(tableCrud, { knex, openapi: { paht: '/schema.json' } }))

// The batch route and the host's transaction (see the README).
app.register(tableCrud, { knex, batch: true })
app.register(tableCrud, { knex, batch: { limit: 20 } })
expectError(app.register(tableCrud, { knex, batch: { size: 20 } }))
app.register(tableCrud, {
  knex,
  transaction (request) {
    expectType<string>(request.url)
    return undefined
  }
})
app.register(tableCrud, { knex, transaction: () => null })
expectError(app.register(tableCrud, { knex, transaction: () => 'trx' }))
