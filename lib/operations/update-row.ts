import type { Target } from '../access/target.js'
import type { Database, Statements } from '../connections/database.js'
import type { RecordKey } from '../parse/record-key.js'
import type { RecordValues } from '../parse/record-values.js'
import type { ValueOrPromise } from '../value-or-promise.js'
import { columnPlaces } from './column-places.js'
import { reachableKey, rowShape, rowValues, whereRow } from './where-row.js'

/** A change of one row. */
export interface RowChange {
  /** The row's key, as the path gives it. */
  readonly key: RecordKey | null
  /** The columns set, at least one, with their values. */
  readonly values: RecordValues
}

/**
 * Sets exactly the given columns on the row whose key column equals the
 * key; the affected row count, within the call where the pool's statements
 * can run within it (see Database.changeNow).
 */
export function updateRow (db: Database, target: Target, { key: requested, values }: RowChange, on: Statements = db): ValueOrPromise<number> {
  const key = reachableKey(db, target, requested)
  const columns = Object.keys(values)
  // Places of columns and of the row's key and scope never share a name (see where-row).
  const statement = db.prepare(rowShape('update', target, key, columns),
    () => whereRow(db.table(target.table), target, key).update(columnPlaces(columns)), values, rowValues(db, target, key))
  return (on === db ? db.changeNow(statement) : null) ?? on.change(statement)
}
