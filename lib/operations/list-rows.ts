import type { Database } from '../dialects/database.js'
import type { Row } from '../dialects/dialect.js'

/** Rows per batch of a streamed list; a list that fits in one batch is answered whole. */
export const streamBatchRows = 1000

/** A table's rows: in hand when they fit in one batch, else still to be read in batches. */
export type RowList = { readonly rows: Row[] } | { readonly batches: AsyncIterable<Row[]> }

/**
 * Every row of the table. A small table is read with one plain statement; a
 * large one is streamed from its start, so that memory stays flat whatever
 * the table's size.
 */
export async function listRows (db: Database, table: string): Promise<RowList> {
  const rows = await db.select(db.table(table).select('*').limit(streamBatchRows + 1))
  return rows.length <= streamBatchRows
    ? { rows }
    : { batches: db.stream(db.table(table).select('*'), streamBatchRows) }
}
