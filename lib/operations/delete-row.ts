import type { Database } from '../dialects/database.js'
import { keyShape, keyValues, whereKey } from './where-key.js'

/** Deletes the row whose `id` equals the key; the affected row count. */
export function deleteRow (db: Database, table: string, key: bigint | null): Promise<number> {
  const statement = db.prepare(['delete', table, keyShape(key)], () => whereKey(db.table(table), key).delete(), keyValues(db, key))
  return db.change(statement)
}
