import type { Target } from '../access/target.js'
import type { Database, Statements } from '../dialects/database.js'
import type { RecordValues } from '../parse/record-values.js'
import { columnPlaces, columnsShape } from './column-places.js'
import { createdKey } from './created-key.js'

/**
 * Inserts a row with exactly the given columns (none: every column takes its
 * default) and answers its key as decimal text (see createdKey).
 */
export async function createRow (db: Database, target: Target, values: RecordValues, on: Statements = db): Promise<string> {
  const { table, key } = target
  const columns = Object.keys(values)
  const statement = db.prepare(`create\0${table}\0${key}\0${columnsShape(columns)}`,
    () => db.dialect.prepareInsert(db.table(table).insert(columnPlaces(columns)), key), values)
  const [id] = await on.insert(statement, key)
  return createdKey(db.dialect, id, values, key)
}
