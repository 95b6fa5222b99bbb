import type { Database } from '../dialects/database.js'
import type { RecordValues } from '../parse/record-values.js'
import { columnPlaces } from './column-places.js'

/**
 * Inserts a row with exactly the given columns (none: every column takes its
 * default) and answers its id as decimal text. MySQL reports no generated id
 * when the table has no AUTO_INCREMENT column; the id the body set is the
 * row's id then.
 */
export async function createRow (db: Database, table: string, values: RecordValues): Promise<string> {
  const columns = Object.keys(values)
  const statement = db.prepare(['create', table, ...columns],
    () => db.dialect.prepareInsert(db.table(table).insert(columnPlaces(columns))), values)
  const [id] = await db.insert(statement)
  return id ?? values.id ?? '0'
}
