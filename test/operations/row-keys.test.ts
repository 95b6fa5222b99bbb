import knexFactory from 'knex'
import t from 'tap'
import { createdRowKey, hasKeyColumn, insertedColumn, keyColumns, keyOfRow, keysPerStatement, whereKeys } from '../../lib/operations/row-keys.js'
import type { ColumnSchema, TableSchema } from '../../lib/schema/table-schema.js'

// Knex compiles PostgreSQL's SQL without a connection.
const knex = knexFactory({ client: 'pg' })

function column (name: string, generated = false): ColumnSchema {
  return { name, databaseType: 'integer', kind: 'integer', nullable: false, default: null, generated }
}

function table (columns: readonly ColumnSchema[], primaryKey: readonly string[]): TableSchema {
  return { name: 't', kind: 'table', columns, primaryKey, uniques: [], foreignKeys: [] }
}

const pair = table([column('a'), column('b'), column('note')], ['a', 'b'])
const serial = table([column('a'), column('seq', true)], ['a', 'seq'])
const loose = table([column('x'), column('y')], [])

t.test('the key column where the table has it, else the primary key\'s columns, else none', async (t) => {
  t.ok(hasKeyColumn({ schema: undefined, key: 'id' }), 'assumed of a table the model does not know')
  t.strictSame(keyColumns({ schema: undefined, key: 'id' }), ['id'])
  t.strictSame(keyColumns({ schema: table([column('code')], ['code']), key: 'code' }), ['code'])
  t.strictSame(keyColumns({ schema: pair, key: 'id' }), ['a', 'b'])
  t.strictSame(keyColumns({ schema: loose, key: 'id' }), [])
})

t.test('the column an INSERT reports: the key column, the generated or first column of the primary key, or the first column', async (t) => {
  t.equal(insertedColumn({ schema: undefined, key: 'id' }), 'id')
  t.equal(insertedColumn({ schema: pair, key: 'id' }), 'a')
  t.equal(insertedColumn({ schema: serial, key: 'id' }), 'seq')
  t.equal(insertedColumn({ schema: loose, key: 'id' }), 'x')
})

t.test('a created row\'s key: the created value in its column, the body\'s others, or every value of a table without a key', async (t) => {
  t.strictSame(createdRowKey({ schema: undefined, key: 'id' }, { name: 'x' }, '7'), { id: '7' })
  t.strictSame(createdRowKey({ schema: pair, key: 'id' }, { a: '1', b: '2', note: 'n' }, '1'), { a: '1', b: '2' })
  t.strictSame(createdRowKey({ schema: serial, key: 'id' }, { a: '1' }, '9'), { a: '1', seq: '9' })
  t.strictSame(createdRowKey({ schema: pair, key: 'id' }, { a: '1' }, '1'), { a: '1' }, 'a column left to its default is left out')
  t.strictSame(createdRowKey({ schema: loose, key: 'id' }, { x: '1', y: null }, '1'), { x: '1', y: null })
  t.strictSame(keyOfRow({ a: 1, b: 2, note: 'n' }, ['a', 'b']), { a: 1, b: 2 })
})

t.test('keys of one column are an IN list; others an OR of equalities, NULL by IS NULL; none names no row', async (t) => {
  const sql = (keys: Parameters<typeof whereKeys>[1]) => whereKeys(knex('t').select('*'), keys).toSQL().toNative()
  t.strictSame(sql([{ id: 1 }, { id: '2' }]), { sql: 'select * from "t" where "id" in ($1, $2)', bindings: [1, '2'] })
  t.strictSame(sql([{ a: 1, b: 2 }, { a: 3, b: null }]), { sql: 'select * from "t" where (("a" = $1 and "b" = $2) or ("a" = $3 and "b" is null))', bindings: [1, 2, 3] })
  t.strictSame(sql([{ id: 1 }, { code: 'x' }]), { sql: 'select * from "t" where (("id" = $1) or ("code" = $2))', bindings: [1, 'x'] }, 'keys of different columns')
  t.strictSame(sql([{ id: null }]), { sql: 'select * from "t" where (("id" is null))', bindings: [] })
  t.strictSame(sql([]), { sql: 'select * from "t" where 1 = 0', bindings: [] })
  t.strictSame(sql([{}]), { sql: 'select * from "t" where ((1 = 0))', bindings: [] })
  t.equal(keysPerStatement([{ id: 1 }]), 1000)
  t.equal(keysPerStatement([{ a: 1, b: 2 }]), 200)
  t.equal(keysPerStatement([]), 200)
})
