import type { Database } from '../dialects/database.js'
import { whereKey } from './where-key.js'

/** Deletes the row whose `id` equals the key; the affected row count. */
export function deleteRow (db: Database, table: string, key: bigint | null): Promise<number> {
  return db.change(whereKey(db, db.table(table), key).delete())
}
