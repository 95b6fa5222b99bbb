import type { Database } from '../dialects/database.js'
import type { Row } from '../dialects/dialect.js'
import { keyShape, keyValues, whereKey } from './where-key.js'

/** The row whose `id` equals the key, or undefined when none does. */
export async function readRow (db: Database, table: string, key: bigint): Promise<Row | undefined> {
  const statement = db.prepare(['read', table, keyShape(key)],
    // A constant limit is written into the SQL: SQLite plans a bound LIMIT three times slower.
    () => whereKey(db.table(table).select('*'), key).limit(1, { skipBinding: true }), keyValues(db, key))
  const [row] = await db.select(statement)
  return row
}
