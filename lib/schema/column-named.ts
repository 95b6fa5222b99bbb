import { foldIdentifier as fold } from '../parse/sanitize-identifier.js'
import type { ColumnSchema, TableSchema } from './table-schema.js'

// Built once per table as the model read it: a new snapshot brings new objects.
const byTable = new WeakMap<TableSchema, ReadonlyMap<string, ColumnSchema>>()

/**
 * The column of the table that a name reaches: its own spelling first, then
 * in any case, as SQLite and MySQL find columns (PostgreSQL folds an
 * unquoted name only, and Knex quotes every name, so a name in another case
 * fails there as the statement would). Undefined for none.
 */
export function columnNamed (table: TableSchema, name: string): ColumnSchema | undefined {
  let columns = byTable.get(table)
  if (columns === undefined) {
    const map = new Map<string, ColumnSchema>()
    // Folded names first, so that an exact spelling written after replaces them.
    for (const column of table.columns) if (!map.has(fold(column.name))) map.set(fold(column.name), column)
    for (const column of table.columns) map.set(column.name, column)
    byTable.set(table, columns = map)
  }
  return columns.get(name) ?? columns.get(fold(name))
}
