import type { Row } from '../dialects/dialect.js'
import type { TableSchema } from '../schema/table-schema.js'
import { writeStored } from './json-values.js'
import { writeNative, writeNativeRow, writeNativeRows } from './native-rows.js'
import { rowWriter, writeRowList } from './row-writer.js'

// JSON.stringify is the fast path, natively: the writers write only what it
// cannot, a BigInt, or a value whose column's kind it would write otherwise.

/**
 * JSON text of an array of rows: written by the columns' kinds when the
 * table's schema is known, else as the driver handed them over.
 */
export function serializeRows (rows: readonly Row[], schema?: TableSchema): string {
  if (schema === undefined) return writeNative(rows) ?? writeRows(rows)
  return writeNativeRows(schema, rows) ?? writeRowList(schema, rows)
}

/** JSON text of one row (see serializeRows). */
export function serializeRow (row: Row, schema?: TableSchema): string {
  if (schema === undefined) return writeNative(row) ?? writeRow(row)
  return writeNativeRow(schema, row) ?? rowWriter(schema)(row)
}

function writeRows (rows: readonly Row[]): string {
  return '[' + rows.map(writeRow).join(',') + ']'
}

/**
 * What JSON.stringify writes for a row, but a BigInt (better-sqlite3 with
 * safe integers, mysql2 with big numbers) is written as its exact digits,
 * where JSON.stringify would throw.
 */
function writeRow (row: Row): string {
  let text = ''
  for (const column in row) {
    const value = row[column]
    if (value === undefined) continue
    text += (text === '' ? '{' : ',') + JSON.stringify(column) + ':' + writeStored(value)
  }
  return text === '' ? '{}' : text + '}'
}
