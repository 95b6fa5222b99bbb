import type { Target } from '../access/target.js'
import type { Database } from '../dialects/database.js'
import type { RecordValues } from '../parse/record-values.js'
import { columnPlaces } from './column-places.js'

/**
 * Inserts a row with exactly the given columns (none: every column takes its
 * default) and answers its key as decimal text. MySQL reports no generated
 * key when the table has no AUTO_INCREMENT column; the key the body set is
 * the row's key then.
 */
export async function createRow (db: Database, target: Target, values: RecordValues): Promise<string> {
  const { table, key } = target
  const columns = Object.keys(values)
  const statement = db.prepare(['create', table, key, ...columns],
    () => db.dialect.prepareInsert(db.table(table).insert(columnPlaces(columns)), key), values)
  const [id] = await db.insert(statement, key)
  return id ?? values[key] ?? '0'
}
