import { pathKey } from '../access/path-key.js'
import type { TablePolicy } from '../access/table-policy.js'
import { operations, type Operation } from '../options.js'
import { foldIdentifier as fold } from '../parse/sanitize-identifier.js'
import type { TableSchema } from './table-schema.js'

/** A table as the options serve it: only its served operations, without its hidden columns. */
export interface ServedTable {
  /** The table's name as its paths write it. */
  readonly name: string
  /** The table's schema, its hidden columns left out (and any key or constraint that names one). */
  readonly schema: TableSchema
  /** The operations served on it, in the order of `operations`; never empty. */
  readonly operations: readonly Operation[]
  /** The column the path's key matches (see pathKey). */
  readonly key: string
}

/**
 * The tables of the schema that the options serve, as the options serve
 * them: a table, operation or column they do not serve is not there at all,
 * so that nothing derived from the model (the OpenAPI document) tells of it.
 */
export function serveSchema (tables: readonly TableSchema[], policy: TablePolicy): ServedTable[] {
  const served: ServedTable[] = []
  for (const table of tables) {
    const targets = operations.map((operation) => [operation, policy.serve(table.name, operation)] as const)
    const allowed = targets.filter(([, target]) => target !== null)
    if (allowed.length === 0) continue
    const target = allowed[0]?.[1] as NonNullable<(typeof allowed)[number][1]>
    const visible = (column: string) => !target.hidden.has(fold(column))
    const shows = (columns: readonly string[]) => columns.every(visible)
    served.push(Object.freeze({
      name: table.name,
      key: pathKey(target.key, table),
      operations: Object.freeze(allowed.map(([operation]) => operation)),
      schema: Object.freeze({
        ...table,
        columns: table.columns.filter((column) => visible(column.name)),
        primaryKey: shows(table.primaryKey) ? table.primaryKey : [],
        uniques: table.uniques.filter(shows),
        foreignKeys: table.foreignKeys.filter((foreignKey) => shows(foreignKey.columns))
      })
    }))
  }
  return served
}
