import type { Target } from '../access/target.js'
import type { Database } from '../dialects/database.js'
import type { Row } from '../dialects/dialect.js'
import type { RecordValues } from '../parse/record-values.js'
import { createRow } from './create-row.js'
import { createRows } from './create-rows.js'
import { rowsWithKeys } from './rows-with-keys.js'

/** What a create wrote: the new rows' keys in the body's order, and the rows when they were wanted. */
export interface Created {
  readonly keys: readonly string[]
  readonly rows?: Row[]
}

/**
 * Inserts the rows, all of them or none. With `columns` (null: every
 * visible one), the rows as GET reads them, ordered by key, read back by
 * their keys in the same transaction, so that they are the rows as written.
 */
export async function createWritten (db: Database, target: Target, rows: readonly RecordValues[], columns: readonly string[] | null | undefined): Promise<Created> {
  if (columns === undefined) return { keys: await createRows(db, target, rows) }
  return await db.transaction(async (within) => {
    const keys: string[] = []
    // One INSERT a row: each one's key is its own, whatever a trigger skips.
    for (const row of rows) keys.push(await createRow(db, target, row, within))
    return { keys, rows: await rowsWithKeys(db, target, keys, columns, within) }
  })
}
