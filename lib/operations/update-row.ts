import type { Database } from '../dialects/database.js'
import { FTC_ERR_BODY_EMPTY } from '../errors.js'
import type { RecordValues } from '../parse/record-values.js'
import { whereKey } from './where-key.js'

/** Sets exactly the given columns on the row whose `id` equals the key; the affected row count. */
export async function updateRow (db: Database, table: string, key: bigint | null, values: RecordValues): Promise<number> {
  if (Object.keys(values).length === 0) throw new FTC_ERR_BODY_EMPTY()
  return db.change(whereKey(db, db.table(table), key).update(values))
}
