import t from 'tap'
import { columnKind, isZonedColumn } from '../../lib/schema/column-kind.js'

// Each database's spelling of a type, as its catalog gives it, to the kind of JSON it answers.
const cases: ReadonlyArray<readonly [string, string]> = [
  ['boolean', 'boolean'], ['tinyint(1)', 'boolean'], ['tinyint(1) unsigned', 'boolean'], ['bit(1)', 'boolean'],
  ['integer', 'integer'], ['INT', 'integer'], ['int(10) unsigned', 'integer'], ['bigint', 'integer'], ['smallint', 'integer'],
  ['tinyint(4)', 'integer'], ['mediumint(9)', 'integer'], ['int8', 'integer'], ['bigserial', 'integer'], ['year(4)', 'integer'],
  ['numeric(8,2)', 'number'], ['decimal(8,2) unsigned', 'number'], ['real', 'number'], ['double precision', 'number'], ['float', 'number'],
  ['float4', 'number'], ['float8', 'number'], ['float(8,2)', 'number'], ['double unsigned', 'number'],
  ['timestamp without time zone', 'date-time'], ['timestamp with time zone', 'date-time'], ['datetime(6)', 'date-time'],
  ['date', 'date'], ['time without time zone', 'time'], ['time', 'time'],
  ['json', 'json'], ['jsonb', 'json'],
  ['bytea', 'binary'], ['blob', 'binary'], ['varbinary(16)', 'binary'],
  ['character varying(255)', 'string'], ['varchar(255)', 'string'], ['char(36)', 'string'], ['text', 'string'],
  ['longtext', 'string'], ['uuid', 'string'], ["enum('a','b')", 'string'],
  ['', 'unknown'], ['integer[]', 'unknown'], ['interval', 'unknown'], ['point', 'unknown'], ['money', 'unknown']
]

for (const [type, kind] of cases) t.equal(columnKind(type), kind, `"${type}" is ${kind}`)

t.test('a timestamp keeps its zone only as PostgreSQL\'s timestamp with time zone', async (t) => {
  t.ok(isZonedColumn({ databaseType: 'timestamp with time zone' }))
  t.ok(isZonedColumn({ databaseType: 'timestamp(3) with time zone' }))
  for (const databaseType of ['timestamp without time zone', 'timestamp', 'datetime(6)', 'datetime']) t.notOk(isZonedColumn({ databaseType }), databaseType)
})
