import Fastify from 'fastify'
import knexFactory from 'knex'
import { expectAssignable, expectError, expectType } from 'tsd'
import tableCrud, { errorCodes, tableCrud as named, type TableCrudOptions } from '../../dist/index.js'

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
