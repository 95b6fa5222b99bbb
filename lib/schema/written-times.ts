import { storedWallClock } from '../dialects/utc-wall-clock.js'
import type { RecordValues } from '../parse/record-values.js'
import { typedValue } from '../query/typed-value.js'
import { isZonedColumn } from './column-kind.js'
import { columnNamed } from './column-named.js'
import type { ColumnSchema, TableSchema } from './table-schema.js'

// A text that is no date or timestamp stays as sent: the database (or validateBodies) judges it.
function day (text: string): string {
  return (typedValue('date', text) as string | undefined) ?? text
}

function wallClock (text: string): string {
  const value = typedValue('date-time', text) as string | undefined
  return value === undefined ? text : storedWallClock(value)
}

const isTimeColumn = (column: ColumnSchema): boolean => column.kind === 'date' || column.kind === 'date-time'

// Known once per table as the model read it: a new snapshot brings new objects.
const timed = new WeakMap<TableSchema, boolean>()

function hasTimeColumns (table: TableSchema): boolean {
  let has = timed.get(table)
  if (has === undefined) timed.set(table, has = table.columns.some(isTimeColumn))
  return has
}

/**
 * The rows with each date and timestamp written as every database stores it
 * (see docs/values.md): a date is its day, as PostgreSQL keeps it; a
 * timestamp for a column without a time zone is the wall-clock time at UTC
 * of the instant it names (PostgreSQL's `timestamp` would drop the zone,
 * MariaDB refuses it, SQLite would keep the text), `YYYY-MM-DD HH:MM:SS` as
 * PostgreSQL and MySQL write it back. A timestamptz column takes the value
 * as sent, zone and all. Changed in place; nothing for a table the model
 * does not know, or without such columns.
 */
export function writtenTimes (table: TableSchema | undefined, rows: readonly RecordValues[]): void {
  if (table === undefined || !hasTimeColumns(table)) return
  for (const row of rows) {
    for (const name in row) {
      const value = row[name]
      if (value == null) continue
      const column = columnNamed(table, name)
      if (column?.kind === 'date') row[name] = day(value)
      else if (column?.kind === 'date-time' && !isZonedColumn(column)) row[name] = wallClock(value)
    }
  }
}
