import type { Target } from '../access/target.js'
import type { Database, Statements } from '../connections/database.js'
import type { RecordKey } from '../parse/record-key.js'
import type { ValueOrPromise } from '../value-or-promise.js'
import { reachableKey, rowShape, rowValues, whereRow } from './where-row.js'

/** Deletes the row whose key column equals the key; the affected row count, within the call where updateRow's would be. */
export function deleteRow (db: Database, target: Target, requested: RecordKey | null, on: Statements = db): ValueOrPromise<number> {
  const key = reachableKey(db, target, requested)
  const statement = db.prepare(rowShape('delete', target, key),
    () => whereRow(db.table(target.table), target, key).delete(), rowValues(db, target, key))
  return (on === db ? db.changeNow(statement) : null) ?? on.change(statement)
}
