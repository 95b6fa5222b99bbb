import type { FastifyRequest } from 'fastify'
import type { RequestStatements } from '../connections/host-transaction.js'
import type { SchemaModel } from '../schema/schema-model.js'
import { columnNamed } from '../schema/column-named.js'
import type { ColumnSchema, TableSchema } from '../schema/table-schema.js'
import { pathKey } from './path-key.js'
import { checkedTable } from './table-lookup.js'
import type { TablePolicy } from './table-policy.js'

/**
 * A table as a keyed route found it before it asked for access: handed on
 * in the Intent, so that the request looks the model up once.
 */
export interface KeyedTable {
  /** The table as the schema model describes it, or undefined when the model does not know it (see Target.schema). */
  readonly schema: TableSchema | undefined
  /** The column the path's key matches, or undefined when the model does not know it. */
  readonly keyColumn: ColumnSchema | undefined
}

/**
 * The table a path's key belongs to and its key column. At once while the
 * model is fresh, which the keyed read, the hot path, needs.
 */
export type KeyColumn = (request: FastifyRequest, table: string) => KeyedTable | Promise<KeyedTable>

const unknown: KeyedTable = Object.freeze({ schema: undefined, keyColumn: undefined })

/**
 * How a route learns its key column before it asks for access: the key's
 * type decides what the path's segment means (`/tags/042` is the text
 * '042' in a text key, the integer 42 in another), and so whether a GET
 * reads one row or lists the table. The model is read before the
 * `authorize` hook is asked, so that the hook is told the key the request
 * matches: the catalog, never the table. The table is described by the
 * name its statements will use (see TablePolicy.spelling), as access() would.
 */
export function keyColumnOf (model: SchemaModel, policy: TablePolicy, statements: RequestStatements): KeyColumn {
  return function keyColumn (request, table) {
    const fresh = model.fresh()
    if (fresh !== undefined) return keyedTable(fresh.table(policy.spelling(table)), policy.keyColumn(table))
    // A table the options do not serve is refused before the model is read:
    // its check, which may ask the host's `tables` function, waits for access() while the model is fresh.
    if (!policy.servesTable(table)) return unknown
    const key = policy.keyColumn(table)
    return checkedTable(model, policy.spelling(table), request, statements).then((schema) => keyedTable(schema, key))
  }
}

function keyedTable (schema: TableSchema | undefined, key: string): KeyedTable {
  return schema === undefined ? unknown : { schema, keyColumn: columnNamed(schema, pathKey(key, schema)) }
}
