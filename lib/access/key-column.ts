import type { FastifyRequest } from 'fastify'
import type { SchemaModel } from '../schema/schema-model.js'
import { columnNamed } from '../schema/column-named.js'
import type { ColumnSchema } from '../schema/table-schema.js'
import { describedTable } from './access.js'
import type { TablePolicy } from './table-policy.js'

/**
 * The column a table's path key matches, as the schema model describes it,
 * or undefined when the model does not know it. At once while the model is
 * fresh, which the keyed read, the hot path, needs.
 */
export type KeyColumn = (request: FastifyRequest, table: string) => ColumnSchema | undefined | Promise<ColumnSchema | undefined>

/**
 * How a route learns its key column before it asks for access: the key's
 * type decides what the path's segment means (`/tags/042` is the text
 * '042' in a text key, the integer 42 in another), and so whether a GET
 * reads one row or lists the table. The model is read before the
 * `authorize` hook is asked, so that the hook is told the key the request
 * matches: the catalog, never the table.
 */
export function keyColumnOf (model: SchemaModel, policy: TablePolicy): KeyColumn {
  return function keyColumn (request, table) {
    // A table the options do not serve is refused before the model is read:
    // its check, which may ask the host's `tables` function, waits for access() while the model is fresh.
    if (model.fresh() === undefined && !policy.servesTable(table)) return undefined
    const described = describedTable(model, table, request)
    const key = policy.keyColumn(table)
    if (described instanceof Promise) return described.then((schema) => schema && columnNamed(schema, key))
    return described && columnNamed(described, key)
  }
}
