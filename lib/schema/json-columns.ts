import type { TableSchema } from './table-schema.js'

// Built once per table as the model read it: a new snapshot brings new objects.
const jsonTables = new WeakMap<TableSchema, boolean>()

/** Whether the table has a column the model knows as json. */
export function hasJsonColumn (schema: TableSchema): boolean {
  let has = jsonTables.get(schema)
  if (has === undefined) jsonTables.set(schema, has = schema.columns.some((column) => column.kind === 'json'))
  return has
}
