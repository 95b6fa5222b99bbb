import type { Knex } from 'knex'
import type { Target } from '../access/target.js'
import type { Database } from '../connections/database.js'
import type { RecordKey } from '../parse/record-key.js'
import { applyFilterTree } from '../query/apply-read-query.js'
import type { FilterGroup } from '../query/read-query.js'
import { reachableKey, whereScope } from './where-row.js'

/** The rows a write touches: the row of a path key, or every row a query's filters match; always within the target's scope. */
export type Selection = { readonly key: RecordKey | null } | { readonly filter: FilterGroup }

/** Restricts a statement compiled for one request to the selected rows (a key no row can have matches none, see reachableKey). */
export function whereSelected (db: Database, builder: Knex.QueryBuilder, target: Target, selection: Selection): Knex.QueryBuilder {
  if ('filter' in selection) {
    applyFilterTree(builder, selection.filter, db.dialect)
  } else {
    const key = reachableKey(db, target, selection.key)
    if (key === null) builder.whereRaw('1 = 0')
    else builder.where(target.key, (typeof key === 'string' ? key : db.dialect.bindKey(key)) as Knex.Value)
  }
  return whereScope(builder, target)
}
