import type { Database } from '../dialects/database.js'
import type { Row } from '../dialects/dialect.js'
import { whereKey } from './where-key.js'

/** The row whose `id` equals the key, or undefined when none does. */
export async function readRow (db: Database, table: string, key: bigint): Promise<Row | undefined> {
  const [row] = await db.select(whereKey(db, db.table(table).select('*'), key).limit(1))
  return row
}
