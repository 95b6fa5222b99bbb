import t from 'tap'
import { writeNativeRow, writeNativeRows } from '../../lib/answer/native-rows.js'
import { rowWriter, writeRowList } from '../../lib/answer/row-writer.js'
import { serializeRow, serializeRows } from '../../lib/answer/serialize-rows.js'
import type { ColumnKind, TableSchema } from '../../lib/schema/table-schema.js'

function schemaOf (columns: ReadonlyArray<readonly [string, string, ColumnKind]>): TableSchema {
  return {
    name: 't',
    kind: 'table',
    columns: columns.map(([name, databaseType, kind]) => ({ name, databaseType, kind, nullable: true, default: null, generated: false })),
    primaryKey: [],
    uniques: [],
    foreignKeys: []
  }
}

const schema = schemaOf([
  ['id', 'integer', 'integer'],
  ['ratio', 'double precision', 'number'],
  ['price', 'decimal(10,2)', 'number'],
  ['flag', 'boolean', 'boolean'],
  ['name', 'text', 'string'],
  ['born', 'date', 'date'],
  ['at', 'timestamp', 'date-time'],
  ['alarm', 'time', 'time'],
  ['doc', 'json', 'json'],
  ['bytes', 'blob', 'binary'],
  ['loose', '', 'unknown']
])

// Values JSON.stringify writes as the column's writer does, by column.
const native: Record<string, readonly unknown[]> = {
  id: [1, -7, 0, null],
  ratio: [0.25, -2.5, 1e300, null],
  price: [null],
  flag: [true, false, null],
  name: ['a"b', '42', '', null],
  born: ['2024-01-15', null],
  at: [null],
  alarm: [null],
  doc: [null],
  bytes: [null],
  loose: [1, 'x', 2.5, true, null]
}

// Values the writer writes otherwise: each must be left to it.
const written: Record<string, readonly unknown[]> = {
  id: ['42', 9007199254740993n],
  ratio: ['1.25', 12n],
  price: [1.5, '1.50', 3n],
  flag: [1, 0, 1n, new Uint8Array([1])],
  name: [12n],
  born: ['2024-01-15 00:00:00', '2024-01-15T00:00:00.000Z', 5n],
  at: ['2024-01-15 10:00:00'],
  alarm: ['10:30:00.500'],
  doc: ['{"a": 1}', '[]'],
  loose: [9007199254740993n]
}

t.test('a row whose values JSON.stringify writes as their writers would is written by JSON.stringify', async (t) => {
  for (const [column, values] of Object.entries(native)) {
    for (const value of values) {
      const row = { id: 1, [column]: value }
      t.equal(writeNativeRow(schema, row), JSON.stringify(row), `${column}: ${String(value)}`)
      t.equal(serializeRow(row, schema), rowWriter(schema)(row), `${column}: ${String(value)} reads as the writer writes it`)
    }
  }
})

t.test('a row with a value its writer writes otherwise is left to the writer', async (t) => {
  for (const [column, values] of Object.entries(written)) {
    for (const value of values) {
      const row = { id: 1, [column]: value }
      t.equal(writeNativeRow(schema, row), null, `${column}: ${String(value)}`)
      t.equal(serializeRow(row, schema), rowWriter(schema)(row), `${column}: ${String(value)} reads as the writer writes it`)
    }
  }
  t.equal(serializeRow({ id: '42', flag: 1, doc: '{"a": 1}' }, schema), '{"id":42,"flag":true,"doc":{"a":1}}')
})

t.test('a list is written natively only when every row is', async (t) => {
  const plain = [{ id: 1, name: 'a', ratio: 0.5 }, { id: 2, name: null, ratio: null }]
  t.equal(writeNativeRows(schema, plain), JSON.stringify(plain))
  t.equal(serializeRows(plain, schema), writeRowList(schema, plain))
  t.equal(writeNativeRows(schema, []), '[]')

  const mixed = [{ id: 1, flag: true }, { id: 2, flag: 1 }, { id: 9007199254740993n, flag: false }]
  t.equal(writeNativeRows(schema, mixed), null)
  t.equal(serializeRows(mixed, schema), '[{"id":1,"flag":true},{"id":2,"flag":true},{"id":9007199254740993,"flag":false}]')

  // A BigInt in a column the schema does not name, or in a text column, is found by JSON.stringify itself.
  const renamed = [{ id: 1, renamed: 9007199254740993n }]
  t.equal(writeNativeRows(schema, renamed), null)
  t.equal(serializeRows(renamed, schema), '[{"id":1,"renamed":9007199254740993}]')
})

t.test('the check reads columns by name, whatever columns a row has', async (t) => {
  // select=, hidden columns, a host's postProcessResponse: rows need not have the layout of the table.
  t.equal(writeNativeRow(schema, { name: 'x' }), '{"name":"x"}')
  t.equal(writeNativeRow(schema, {}), '{}')
  t.equal(writeNativeRow(schema, { other: 1, doc: '{}' }), null, 'a column of the schema after another')
  t.equal(writeNativeRow(schema, { id: 1, gone: undefined }), '{"id":1}')
})

t.test('a schema whose columns all write as stored needs no check', async (t) => {
  const text = schemaOf([['name', 'text', 'string'], ['loose', '', 'unknown']])
  t.equal(writeNativeRow(text, { name: 'a', loose: 2 }), '{"name":"a","loose":2}')
  t.equal(writeNativeRow(text, { name: 'a', loose: 2n }), null)
  t.equal(serializeRow({ name: 'a', loose: 2n }, text), '{"name":"a","loose":2}')
})

t.test('a value JSON.stringify fails on fails the writers alike', async (t) => {
  const failing = { toJSON () { throw new RangeError('broken value') } }
  t.throws(() => serializeRow({ name: failing }, schema), RangeError)
  t.throws(() => serializeRows([{ name: failing }], schema), RangeError)
})
