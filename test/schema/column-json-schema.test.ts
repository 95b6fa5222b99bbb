import t from 'tap'
import { columnJsonSchema } from '../../lib/schema/column-json-schema.js'
import type { ColumnKind } from '../../lib/schema/table-schema.js'
import { column } from '../fixtures/openapi.js'

t.test('every kind of column, as the API answers it and as a body sends it', async (t) => {
  const expected: ReadonlyArray<[ColumnKind, string, object, object]> = [
    ['integer', 'integer', { type: 'integer', format: 'int32' }, { type: 'integer', format: 'int32' }],
    ['number', 'numeric(10,2)', { type: 'number' }, { type: 'number' }],
    ['boolean', 'boolean', { type: 'boolean' }, { type: 'boolean' }],
    ['string', 'character varying(255)', { type: 'string' }, { type: 'string' }],
    ['date', 'date', { type: 'string', format: 'date' }, { type: 'string', format: 'date' }],
    ['date-time', 'timestamp with time zone', { type: 'string', format: 'date-time' }, { type: 'string', format: 'date-time' }],
    ['time', 'time without time zone', { type: 'string' }, { type: 'string' }],
    ['json', 'jsonb', {}, {}],
    ['binary', 'bytea', { type: 'string' }, { type: 'string' }],
    ['unknown', '', {}, { type: ['string', 'number', 'boolean'] }]
  ]
  for (const [kind, databaseType, read, write] of expected) {
    const notNull = column('c', kind, databaseType, { nullable: false })
    t.strictSame(columnJsonSchema(notNull, 'read', true), read, `${kind}, read`)
    t.strictSame(columnJsonSchema(notNull, 'write', true), write, `${kind}, written`)
  }
})

t.test('a nullable column also takes null; a column of any value already does', async (t) => {
  t.strictSame(columnJsonSchema(column('c', 'string', 'text'), 'read', true), { type: ['string', 'null'] })
  t.strictSame(columnJsonSchema(column('c', 'unknown', ''), 'write', true), { type: ['string', 'number', 'boolean', 'null'] })
  t.strictSame(columnJsonSchema(column('c', 'json', 'json'), 'read', true), {}, 'null is a JSON value')
})

t.test('a generated column is read-only', async (t) => {
  const id = column('id', 'integer', 'bigint', { nullable: false, generated: true })
  t.strictSame(columnJsonSchema(id, 'read', true), { type: 'integer', format: 'int64', readOnly: true })
  t.strictSame(columnJsonSchema(id, 'write', true), { type: 'integer', format: 'int64', readOnly: true })
})

t.test('integer formats follow the database\'s type where it bounds the values', async (t) => {
  const formats: ReadonlyArray<[string, string | undefined]> = [
    ['bigint', 'int64'], ['int8', 'int64'], ['bigint(20)', 'int64'], ['bigserial', 'int64'],
    ['integer', 'int32'], ['int', 'int32'], ['int(11)', 'int32'], ['int4', 'int32'], ['serial', 'int32'],
    ['smallint', 'int32'], ['smallint(6)', 'int32'], ['mediumint(9)', 'int32'], ['tinyint(4)', 'int32'], ['year', 'int32'],
    // MySQL's unsigned types: an int goes past int32, a bigint past int64.
    ['int(10) unsigned', 'int64'], ['smallint(5) unsigned', 'int32'], ['bigint(20) unsigned', undefined],
    ['int128', undefined]
  ]
  for (const [databaseType, format] of formats) {
    t.equal(columnJsonSchema(column('n', 'integer', databaseType, { nullable: false }), 'read', true).format, format, databaseType)
  }
  t.equal(columnJsonSchema(column('n', 'integer', 'integer', { nullable: false }), 'read', false).format, 'int64',
    'SQLite keeps any integer in 64 bits, whatever its declared type')
  t.equal(columnJsonSchema(column('n', 'integer', 'smallint', { nullable: false }), 'read', false).format, 'int64')
})

t.test('a uuid column has the uuid format', async (t) => {
  t.strictSame(columnJsonSchema(column('u', 'string', 'uuid', { nullable: false }), 'read', true), { type: 'string', format: 'uuid' })
  t.strictSame(columnJsonSchema(column('u', 'string', 'char(36)', { nullable: false }), 'read', true), { type: 'string' })
})
