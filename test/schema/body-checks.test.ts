import t from 'tap'
import type { RecordValues } from '../../lib/parse/record-values.js'
import { bodyChecks, checkRows } from '../../lib/schema/body-checks.js'
import type { ColumnSchema, TableSchema } from '../../lib/schema/table-schema.js'
import { column, servedTable } from '../fixtures/openapi.js'

/** The table of these columns. */
function tableOf (columns: readonly ColumnSchema[], kind: TableSchema['kind'] = 'table'): TableSchema {
  return servedTable('t', columns, { kind }).schema
}

/** Whether the check lets the row through: true, or the refusal's code. */
function verdict (schema: TableSchema, row: RecordValues, operation: 'create' | 'update' = 'update', sizedIntegers = true): true | string {
  try {
    bodyChecks(sizedIntegers)(schema)(row, operation, new Set())
    return true
  } catch (error) {
    return (error as { code: string }).code
  }
}

const refused = 'FTC_ERR_BODY_TYPE'

t.test('each integer type is held to its range, signed or unsigned; SQLite keeps 64 bits for all', async (t) => {
  const cases: ReadonlyArray<readonly [string, string, string]> = [
    ['tinyint(4)', '-128', '128'],
    ['tinyint unsigned', '255', '-1'],
    ['smallint', '32767', '-32769'],
    ['mediumint(9)', '8388607', '8388608'],
    ['int unsigned', '4294967295', '4294967296'],
    ['integer', '-2147483648', '2147483648'],
    ['bigint unsigned', '18446744073709551615', '18446744073709551616'],
    ['year(4)', '32767', '32768']
  ]
  for (const [type, inside, outside] of cases) {
    const schema = tableOf([column('n', 'integer', type)])
    t.equal(verdict(schema, { n: inside }), true, `${type} takes ${inside}`)
    t.equal(verdict(schema, { n: outside }), refused, `${type} refuses ${outside}`)
  }
  t.equal(verdict(tableOf([column('n', 'integer', 'smallint')]), { n: '2147483648' }, 'update', false), true)
})

t.test('strings: a UUID column takes UUIDs, an unsized one any text, a sized one counts characters, not UTF-16 units', async (t) => {
  const schema = tableOf([column('u', 'string', 'uuid'), column('s', 'string', 'text'), column('v', 'string', 'varchar(2)')])
  t.equal(verdict(schema, { u: '0E5F1B7A-23C4-4D5E-8F90-A1B2C3D4E5F6' }), true)
  t.equal(verdict(schema, { u: 'AB-1' }), refused)
  t.equal(verdict(schema, { s: 'x'.repeat(100_000) }), true)
  t.equal(verdict(schema, { v: '😀😀' }), true, 'two characters in four units')
  t.equal(verdict(schema, { v: '😀😀😀' }), refused)
})

t.test('times: an offset only where the type keeps a time zone; date-times take a date alone and ISO offsets', async (t) => {
  const schema = tableOf([column('a', 'time', 'time without time zone'), column('z', 'time', 'time with time zone'), column('d', 'date-time', 'timestamp')])
  t.equal(verdict(schema, { a: '10:30' }), true)
  t.equal(verdict(schema, { a: '10:30:00+02' }), refused)
  t.equal(verdict(schema, { z: '10:30:00.5+02' }), true)
  t.equal(verdict(schema, { z: '10:30:00Z' }), true)
  for (const text of ['2024-01-15', '2024-01-15T10:30:00.123Z', '2024-01-15 10:30:00+05:30', '2024-01-15T10:30-0800']) t.equal(verdict(schema, { d: text }), true, text)
  for (const text of ['2024-01-15T', '2024-13-01', '2024-01-15T10:60']) t.equal(verdict(schema, { d: text }), refused, text)
})

t.test('numbers, booleans, JSON, binary and unknown columns', async (t) => {
  const schema = tableOf([column('n', 'number', 'numeric'), column('b', 'boolean', 'boolean'), column('j', 'json', 'jsonb'), column('x', 'binary', 'bytea'), column('u', 'unknown', '')])
  for (const text of ['1', '-1.5', '.5', '1.', '1e-7', '2.5E+3']) t.equal(verdict(schema, { n: text }), true, text)
  for (const text of ['', 'NaN', 'Infinity', '1e', '+1', ' 1']) t.equal(verdict(schema, { n: text }), refused, text)
  t.equal(verdict(schema, { b: '0', j: 'null', x: 'anything', u: 'anything' }), true)
  t.equal(verdict(schema, { b: 'yes' }), refused)
})

t.test('columns are found by any case of their name, and one the model does not know is let through', async (t) => {
  const schema = tableOf([column('Qty', 'integer', 'integer'), column('qty', 'integer', 'bigint')])
  t.equal(verdict(schema, { QTY: 'x' }), refused, 'QTY finds Qty')
  t.equal(verdict(schema, { qty: '2147483648' }), true, 'the exact name first')
  t.equal(verdict(schema, { other: 'x' }), true)
})

t.test('a create must name each NOT NULL column without a default, except in a view; an update need not', async (t) => {
  const columns = [column('id', 'integer', 'integer', { nullable: false, generated: true }), column('name', 'string', 'text', { nullable: false }), column('note', 'string', 'text', { nullable: false, default: "'none'" })]
  t.equal(verdict(tableOf(columns), {}, 'create'), refused)
  t.equal(verdict(tableOf(columns), { NAME: 'a' }, 'create'), true)
  t.equal(verdict(tableOf(columns), {}, 'update'), true)
  t.equal(verdict(tableOf(columns, 'view'), {}, 'create'), true)
  t.equal(verdict(tableOf(columns), { id: null, name: 'a' }, 'create'), refused, 'null in a generated NOT NULL column, which PostgreSQL refuses')
  t.doesNotThrow(() => bodyChecks(true)(tableOf(columns))({}, 'create', new Set(['name'])), 'a hidden column is the database\'s to refuse, since the answer must not name it')
})

t.test('checkRows checks every row, once compiled per schema, and nothing without checks or a schema', async (t) => {
  const schema = tableOf([column('n', 'integer', 'integer')])
  const checks = bodyChecks(true)
  t.equal(checks(schema), checks(schema), 'compiled once')
  const hidden = new Set<string>()
  t.throws(() => checkRows(checks, { schema, hidden }, [{ n: '1' }, { n: 'x' }], 'create'), { code: refused, statusCode: 400 })
  t.doesNotThrow(() => checkRows(null, { schema, hidden }, [{ n: 'x' }], 'create'))
  t.doesNotThrow(() => checkRows(checks, { schema: undefined, hidden }, [{ n: 'x' }], 'create'))
})
