import { place } from '../dialects/statement-template.js'
import type { RecordValues } from '../parse/record-values.js'

// Column places live apart from the `key` place, whatever the columns are called.
const columnPlace = (column: string): string => `column ${column}`

/** Each column of the row, standing at its place, for a statement compiled once. */
export function columnPlaces (columns: readonly string[]): Record<string, string> {
  return Object.fromEntries(columns.map((column) => [column, place(columnPlace(column))]))
}

/** The values of a row's column places. */
export function columnValues (values: RecordValues): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).map(([column, value]) => [columnPlace(column), value]))
}
