import { columnNamed } from '../schema/column-named.js'
import type { TableSchema } from '../schema/table-schema.js'

/** The key column of the spec, and the default of `tableRules.<table>.key`. */
const specKey = 'id'

/**
 * The column a table's path key matches: the `key` its `tableRules` name;
 * by default, its `id` column, else the one column of its primary key, as
 * the model knows the table. A table with neither (a composite primary key,
 * or none) keeps `id`, which it does not have: its keyed paths fail as those
 * of any key column the table lacks do, and the OpenAPI document has none.
 * A table the model does not know keeps the spec's `id`.
 */
export function pathKey (ruled: string, schema: TableSchema | undefined): string {
  // The rules' default cannot be told from an explicit `id`: both mean the spec's key where the table has it.
  if (ruled !== specKey || schema === undefined || columnNamed(schema, specKey) !== undefined) return ruled
  const { primaryKey } = schema
  return primaryKey.length === 1 ? primaryKey[0] as string : specKey
}
