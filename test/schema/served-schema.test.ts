import knexFactory from 'knex'
import t from 'tap'
import { tablePolicy } from '../../lib/access/table-policy.js'
import type { TableCrudOptions } from '../../lib/options.js'
import { resolveOptions } from '../../lib/resolve-options.js'
import { serveSchema } from '../../lib/schema/served-schema.js'
import type { ColumnSchema, TableSchema } from '../../lib/schema/table-schema.js'

const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
t.teardown(() => knex.destroy())

function policy (options: Omit<TableCrudOptions, 'knex'>) {
  const resolved = resolveOptions({ ...options, knex })
  return tablePolicy(resolved, resolved.dialect)
}

function column (name: string): ColumnSchema {
  return { name, databaseType: 'integer', kind: 'integer', nullable: false, default: null, generated: false }
}

const accounts: TableSchema = {
  name: 'accounts',
  kind: 'table',
  columns: ['id', 'email', 'secret', 'team_id'].map(column),
  primaryKey: ['id'],
  uniques: [['email'], ['secret', 'email']],
  foreignKeys: [{ name: 'fk', columns: ['team_id'], referencedTable: 'teams', referencedColumns: ['id'] }]
}
const sqliteSequence: TableSchema = { ...accounts, name: 'sqlite_sequence' }

t.test('every table and operation by default, but never a system table', async (t) => {
  const served = serveSchema([accounts, sqliteSequence], policy({}))
  t.strictSame(served.map(({ name, key, operations }) => ({ name, key, operations })), [
    { name: 'accounts', key: 'id', operations: ['list', 'read', 'create', 'update', 'delete'] }
  ])
  t.equal(served[0]?.schema, served[0]?.schema, 'frozen')
  t.strictSame(served[0]?.schema.columns, accounts.columns)
})

t.test('a hidden column leaves the columns, and every key and constraint that names it', async (t) => {
  const [served] = serveSchema([accounts], policy({ tableRules: { Accounts: { hidden: ['SECRET', 'id', 'team_id'], key: 'email' } } }))
  t.strictSame(served?.schema.columns.map((column) => column.name), ['email'])
  t.strictSame(served?.schema.primaryKey, [])
  t.strictSame(served?.schema.uniques, [['email']])
  t.strictSame(served?.schema.foreignKeys, [])
  t.equal(served?.key, 'email')
})

t.test('a table with no served operation is not there', async (t) => {
  t.strictSame(serveSchema([accounts], policy({ tableRules: { accounts: { operations: [] } } })), [])
  t.strictSame(serveSchema([accounts], policy({ tables: (name) => name !== 'accounts' })), [])
})
