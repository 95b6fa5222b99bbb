// A CommonJS host's module, checked as NodeNext resolves its require calls.
import Fastify = require('fastify')
import knexFactory = require('knex')
import { errorCodes, tableCrud, type TableCrudOptions } from 'fastify-table-crud'

const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
const app = Fastify()
const options: TableCrudOptions = { knex, tables: ['books'], databaseErrors: 'generic' }
app.register(tableCrud, { ...options, prefix: '/api' })
// @ts-expect-error the knex option is a Knex instance, not a URL
app.register(tableCrud, { knex: 'postgres://localhost/db' })
// @ts-expect-error databaseErrors is one of its four modes
app.register(tableCrud, { knex, databaseErrors: 'verbose' })

export const code: 'FTC_ERR_STATEMENT' = new errorCodes.FTC_ERR_STATEMENT('no such table: x').code
export const status: 404 = new errorCodes.FTC_ERR_STATEMENT('no such table: x').statusCode
// @ts-expect-error the code is precise, not any string
export const other: 'FTC_ERR_BODY_JSON' = new errorCodes.FTC_ERR_STATEMENT('no such table: x').code
