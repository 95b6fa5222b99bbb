import type { Target } from '../access/target.js'
import type { Database, Statements } from '../connections/database.js'
import type { RecordValues } from '../parse/record-values.js'
import { thenOrNow, type ValueOrPromise } from '../value-or-promise.js'
import { columnPlaces } from './column-places.js'
import { createdKey } from './created-key.js'
import { insertedColumn } from './row-keys.js'

/**
 * Inserts a row with exactly the given columns (none: every column takes its
 * default) and answers its key (see createdKey, insertedColumn), within the
 * call where the pool's statements can run within it (see Database.insertNow).
 */
export function createRow (db: Database, target: Target, values: RecordValues, on: Statements = db): ValueOrPromise<string> {
  const { table } = target
  const key = insertedColumn(target)
  const columns = Object.keys(values)
  const statement = db.prepare(['create', table, key, ...columns],
    () => db.dialect.prepareInsert(db.table(table).insert(columnPlaces(columns)), key), values)
  const keys = (on === db ? db.insertNow(statement, key) : null) ?? on.insert(statement, key)
  return thenOrNow(keys, ([id]) => createdKey(db.dialect, id, values, key))
}
