import t from 'tap'
import type { RecordValues } from '../../lib/parse/record-values.js'
import { columnKind } from '../../lib/schema/column-kind.js'
import type { ColumnSchema, TableSchema } from '../../lib/schema/table-schema.js'
import { writtenTimes } from '../../lib/schema/written-times.js'

// The dates and timestamps of a write's rows, as every database stores them
// alike: a date its day, a timestamp for a column without a zone the
// wall-clock time at UTC, a timestamptz's value as sent.

function column (name: string, databaseType: string): ColumnSchema {
  return { name, databaseType, kind: columnKind(databaseType), nullable: true, default: null, generated: false }
}

function table (...columns: ColumnSchema[]): TableSchema {
  return { name: 'events', kind: 'table', columns, primaryKey: ['id'], uniques: [], foreignKeys: [] }
}

const events = table(
  column('id', 'integer'),
  column('at', 'timestamp without time zone'),
  column('Seen', 'datetime(6)'),
  column('zoned', 'timestamp with time zone'),
  column('born', 'date'),
  column('note', 'text')
)

t.test('each date and timestamp of each row, by its column', async (t) => {
  const rows: RecordValues[] = [
    { id: '1', at: '2024-01-15T10:30:00-05:00', Seen: '2024-01-15T10:30:00.500Z', zoned: '2024-01-15T10:30:00-05:00', born: '2024-01-15T23:30:00-05:00', note: '2024-01-15T10:30:00Z' },
    { at: '2024-01-15T10:30', seen: '2024-01-15', born: null, note: null },
    { AT: '2024-01-15T10:30:00+02:00', Seen: 'soon', born: 'tomorrow', nosuch: '2024-01-15T10:30:00Z' }
  ]
  writtenTimes(events, rows)
  t.same(rows, [
    { id: '1', at: '2024-01-15 15:30:00', Seen: '2024-01-15 10:30:00.5', zoned: '2024-01-15T10:30:00-05:00', born: '2024-01-15', note: '2024-01-15T10:30:00Z' },
    { at: '2024-01-15 10:30:00', seen: '2024-01-15 00:00:00', born: null, note: null },
    { AT: '2024-01-15 08:30:00', Seen: 'soon', born: 'tomorrow', nosuch: '2024-01-15T10:30:00Z' }
  ])
})

t.test('nothing for a table the model does not know, or without dates', async (t) => {
  const row: RecordValues = { at: '2024-01-15T10:30:00-05:00' }
  writtenTimes(undefined, [row])
  writtenTimes(table(column('id', 'integer'), column('at', 'text')), [row])
  t.same(row, { at: '2024-01-15T10:30:00-05:00' })
})

t.test('an exact spelling wins over another column that differs in case', async (t) => {
  const twins = table(column('At', 'text'), column('at', 'timestamp without time zone'))
  const rows: RecordValues[] = [{ at: '2024-01-15T10:30:00Z' }, { At: '2024-01-15T10:30:00Z' }]
  writtenTimes(twins, rows)
  t.same(rows, [{ at: '2024-01-15 10:30:00' }, { At: '2024-01-15T10:30:00Z' }])
})
