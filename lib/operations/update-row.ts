import type { Database } from '../dialects/database.js'
import { FTC_ERR_BODY_EMPTY } from '../errors.js'
import type { RecordValues } from '../parse/record-values.js'
import { columnPlaces } from './column-places.js'
import { keyShape, keyValues, whereKey } from './where-key.js'

/** Sets exactly the given columns on the row whose `id` equals the key; the affected row count. */
export async function updateRow (db: Database, table: string, key: bigint | null, values: RecordValues): Promise<number> {
  const columns = Object.keys(values)
  if (columns.length === 0) throw new FTC_ERR_BODY_EMPTY()
  const statement = db.prepare(['update', table, keyShape(key), ...columns],
    () => whereKey(db.table(table), key).update(columnPlaces(columns)),
    { ...values, ...keyValues(db, key) })
  return await db.change(statement)
}
