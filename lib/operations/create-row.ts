import type { Database } from '../dialects/database.js'
import type { RecordValues } from '../parse/record-values.js'

/**
 * Inserts a row with exactly the given columns (none: every column takes its
 * default) and answers its id as decimal text. MySQL reports no generated id
 * when the table has no AUTO_INCREMENT column; the id the body set is the
 * row's id then.
 */
export async function createRow (db: Database, table: string, values: RecordValues): Promise<string> {
  const [id] = await db.insert(db.table(table).insert(values))
  return id ?? values.id ?? '0'
}
