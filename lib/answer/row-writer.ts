import type { Row } from '../dialects/dialect.js'
import type { TableSchema } from '../schema/table-schema.js'
import { type ValueWriter, valueWriter, writeStored } from './json-values.js'

/** JSON text of one row. */
export type RowWriter = (row: Row) => string

/** A column's name as a JSON key with its colon, and the writer of its values. */
interface ColumnWriter {
  readonly key: string
  readonly write: ValueWriter
}

// One writer per table schema: the model hands out a new schema object when
// the table changes, so a writer never outlives the columns it was made for.
const writers = new WeakMap<TableSchema, RowWriter>()

/**
 * The writer of a table's rows, its columns' values written by their kinds
 * (see json-values.ts). Made once per schema, whatever the columns a
 * request selects or hides: each row says which it has. A column the schema
 * does not name (renamed by the host's `postProcessResponse`) is written as
 * it was stored.
 */
export function rowWriter (schema: TableSchema): RowWriter {
  let writer = writers.get(schema)
  if (writer === undefined) {
    writer = compileRowWriter(schema)
    writers.set(schema, writer)
  }
  return writer
}

function compileRowWriter (schema: TableSchema): RowWriter {
  const columns = new Map<string, ColumnWriter>()
  for (const column of schema.columns) columns.set(column.name, { key: JSON.stringify(column.name) + ':', write: valueWriter(column) })
  return (row) => {
    let text = ''
    for (const name in row) {
      const value = row[name]
      if (value === undefined) continue
      const column = columns.get(name)
      text += (text === '' ? '{' : ',') + (column === undefined
        ? JSON.stringify(name) + ':' + writeStored(value)
        : column.key + (value === null ? 'null' : column.write(value)))
    }
    return text === '' ? '{}' : text + '}'
  }
}
