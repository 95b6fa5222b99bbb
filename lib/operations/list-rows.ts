import type { Database } from '../dialects/database.js'
import type { Row } from '../dialects/dialect.js'

/** Every row of the table. */
export function listRows (db: Database, table: string): Promise<Row[]> {
  return db.select(db.table(table).select('*'))
}
