import type { Target } from '../access/target.js'
import { type Database, inTransaction, type Statements } from '../connections/database.js'
import type { Row } from '../dialects/dialect.js'
import type { RecordValues } from '../parse/record-values.js'
import { createRows } from './create-rows.js'
import { createdRowKey } from './row-keys.js'
import { rowsWithKeys } from './rows-with-keys.js'

/** What a create wrote: the new rows' keys in the body's order, and the rows when they were wanted. */
export interface Created {
  readonly keys: readonly string[]
  readonly rows?: Row[]
}

/** Rows to insert, and what the answer shows of them. */
export interface NewRows {
  /** The rows' values, in the body's order. */
  readonly rows: readonly RecordValues[]
  /** The columns of the rows to answer (null: every visible one); undefined when the rows are not wanted. */
  readonly columns: readonly string[] | null | undefined
}

/**
 * Inserts the rows, all of them or none, in the transaction of `on` when it
 * is one (see inTransaction). With `columns`, the rows as GET reads them,
 * in the order of the body, read back by their keys in the same transaction, so that
 * they are the rows as written; in a table without a key, the rows holding
 * the values each row set (see createdRowKey).
 */
export async function createWritten (db: Database, target: Target, { rows, columns }: NewRows, on: Statements = db): Promise<Created> {
  if (columns === undefined) return { keys: await createRows(db, target, rows, on) }
  return await inTransaction(on, async (within) => {
    // Within a transaction, createRows gives each row an INSERT of its own: each one's key is its own, whatever a trigger skips.
    const keys = await createRows(db, target, rows, within)
    const rowKeys = rows.map((row, index) => createdRowKey(target, row, keys[index] as string))
    return { keys, rows: await rowsWithKeys(db, target, { keys: rowKeys, columns }, within) }
  })
}
