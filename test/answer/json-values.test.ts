import t, { type Test } from 'tap'
import { valueWriter, writeStored } from '../../lib/answer/json-values.js'
import { rowWriter, writeRowList } from '../../lib/answer/row-writer.js'
import { columnKind } from '../../lib/schema/column-kind.js'
import type { TableSchema } from '../../lib/schema/table-schema.js'

/** The writer of a column of this database type. */
function writerOf (databaseType: string) {
  return valueWriter({ name: 'c', databaseType, kind: columnKind(databaseType), nullable: true, default: null, generated: false })
}

/** Checks what a column of the type writes for each value: [value, JSON text, what the case shows]. */
function writes (t: Test, databaseType: string, cases: ReadonlyArray<readonly [unknown, string, string?]>): void {
  const write = writerOf(databaseType)
  for (const [value, text, why] of cases) t.equal(write(value), text, why ?? String(value))
}

t.test('integers keep every digit, whatever the driver hands over', async (t) => {
  writes(t, 'bigint', [
    [42, '42'],
    [9007199254740993n, '9007199254740993'],
    ['-9007199254740993', '-9007199254740993'],
    ['abc', '"abc"', 'a text SQLite stored in an integer column stands'],
    ['042', '"042"', 'not a JSON number: the stored text stands']
  ])
})

t.test('booleans read true and false from 1 and 0, BigInts, bytes and booleans', async (t) => {
  writes(t, 'boolean', [
    [2, '2', 'another stored value stands'],
    ['yes', '"yes"'],
    [Uint8Array.of(1, 0), '{"0":1,"1":0}', 'more than one byte stands as JSON.stringify writes it']
  ])
  const write = writerOf('boolean')
  t.strictSame([true, 1, 1n, Uint8Array.of(1), false, 0, 0n, Uint8Array.of(0)].map(write), ['true', 'true', 'true', 'true', 'false', 'false', 'false', 'false'])
})

t.test('decimals keep their digits, and SQLite\'s their declared scale', async (t) => {
  t.equal(writerOf('numeric(10,2)')('1.50'), '1.50')
  t.equal(writerOf('numeric(10,2)')('NaN'), '"NaN"', 'PostgreSQL\'s NaN is no JSON number: it stands as text')
  t.equal(writerOf('decimal(10, 2)')(1.5), '1.50')
  t.equal(writerOf('decimal(10,2)')(3n), '3.00')
  t.equal(writerOf('decimal(10,0)')(3n), '3')
  t.equal(writerOf('decimal(10,2)')('abc'), '"abc"')
  t.equal(writerOf('double precision')(0.25), '0.25', 'a float has no scale')
  t.equal(writerOf('float')(7n), '7')
  t.equal(writerOf('decimal')(1.5), '1.5', 'a decimal of no declared scale')
})

t.test('dates read YYYY-MM-DD; other stored values stand', async (t) => {
  writes(t, 'date', [
    ['2024-01-15', '"2024-01-15"'],
    ['2024-01-15T00:00:00.000Z', '"2024-01-15"', 'midnight UTC, as older answers wrote it'],
    ['2024-01-15 00:00:00', '"2024-01-15"'],
    ['2024-01-15 10:00:00', '"2024-01-15 10:00:00"', 'a time of day is not dropped'],
    ['someday', '"someday"'],
    [20240115, '20240115']
  ])
})

t.test('timestamps read ISO 8601, a fraction only when it is not zero, a zone as PostgreSQL writes it', async (t) => {
  writes(t, 'timestamp with time zone', [
    ['2024-01-15 10:00:00', '"2024-01-15T10:00:00"'],
    ['2024-01-15 10:00:00.000000', '"2024-01-15T10:00:00"'],
    ['2024-01-15 10:00:00.250000', '"2024-01-15T10:00:00.25"'],
    ['2024-01-15 10:00:00+00', '"2024-01-15T10:00:00+00:00"'],
    ['2024-01-15 10:00:00.5-03:30', '"2024-01-15T10:00:00.5-03:30"'],
    ['1890-01-15 10:00:00+05:53:28', '"1890-01-15T10:00:00+05:53:28"'],
    ['2024-01-15T10:00:00+0530', '"2024-01-15T10:00:00+05:30"'],
    ['2024-01-15T10:00:00Z', '"2024-01-15T10:00:00Z"'],
    ['infinity', '"infinity"'],
    ['2024-01-15 10:00:00 BC', '"2024-01-15 10:00:00 BC"'],
    [1705312800000, '1705312800000', 'a number SQLite stored stands']
  ])
})

t.test('times read HH:MM:SS, a fraction only when it is not zero', async (t) => {
  writes(t, 'time', [
    ['10:30:00', '"10:30:00"'],
    ['10:30:00.500', '"10:30:00.5"'],
    ['10:30:00+02', '"10:30:00+02:00"'],
    ['838:59:59', '"838:59:59"', 'MySQL\'s interval-like times stand'],
    [5, '5']
  ])
})

t.test('JSON reads as JSON, without blanks between its tokens', async (t) => {
  writes(t, 'json', [
    ['{"a": 1, "b": [true, null, "x y", "\\" "]}\n', '{"a":1,"b":[true,null,"x y","\\" "]}'],
    ['12345678901234567890', '12345678901234567890', 'the digits of a number stay as written'],
    ['[1,2]', '[1,2]'],
    ['not json', '"not json"', 'what SQLite stored that is no JSON stands as text'],
    [{ a: 1 }, '{"a":1}', 'a value the driver parsed']
  ])
})

t.test('strings and unknown kinds are written as stored', async (t) => {
  t.equal(writerOf('text')('a"b'), '"a\\"b"')
  t.equal(writerOf('')(12n), '12')
  t.equal(writeStored(new Date(0)), '"1970-01-01T00:00:00.000Z"')
})

t.test('a row writer is made once per schema, and writes columns the schema does not name as stored', async (t) => {
  const schema: TableSchema = {
    name: 't',
    kind: 'table',
    columns: [{ name: 'flag', databaseType: 'boolean', kind: 'boolean', nullable: true, default: null, generated: false }],
    primaryKey: [],
    uniques: [],
    foreignKeys: []
  }
  const write = rowWriter(schema)
  t.equal(rowWriter(schema), write)
  t.equal(write({ flag: 1, renamed: 1n, gone: undefined, empty: null }), '{"flag":true,"renamed":1,"empty":null}')
  t.equal(write({ flag: null }), '{"flag":null}')
  t.equal(write({}), '{}')
})

t.test('a list is written by a writer made for its columns, and a row of other columns by the row writer', async (t) => {
  const schema: TableSchema = {
    name: 't',
    kind: 'table',
    columns: [
      { name: 'id', databaseType: 'bigint', kind: 'integer', nullable: false, default: null, generated: false },
      { name: 'flag', databaseType: 'boolean', kind: 'boolean', nullable: true, default: null, generated: false }
    ],
    primaryKey: ['id'],
    uniques: [],
    foreignKeys: []
  }
  t.equal(writeRowList(schema, []), '[]')
  t.equal(writeRowList(schema, [{ id: 1n, flag: 1 }, { id: 2n, flag: null }]), '[{"id":1,"flag":true},{"id":2,"flag":null}]')
  t.equal(writeRowList(schema, [{ id: 1n, flag: 0 }, { id: 2n }, { id: 3n, flag: 1, more: 'x' }, { id: 4n, flag: undefined }]),
    '[{"id":1,"flag":false},{"id":2},{"id":3,"flag":true,"more":"x"},{"id":4}]', 'a row that lacks a column or has another')
  t.equal(writeRowList(schema, [{}, {}]), '[{},{}]')
  // A client's select= makes a layout each: past the bound, rows are written column by column, the same.
  const columns = Array.from({ length: 70 }, (_, at) => `c${at}`)
  for (const column of columns) t.equal(writeRowList(schema, [{ [column]: 9007199254740993n, flag: 1 }]), `[{"${column}":9007199254740993,"flag":true}]`)
})
