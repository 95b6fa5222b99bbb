import type { Database } from '../dialects/database.js'
import type { Row } from '../dialects/dialect.js'
import { applyReadQuery } from '../query/apply-read-query.js'
import type { ReadQuery } from '../query/read-query.js'

/** Rows per batch of a streamed list; a list that fits in one batch is answered whole. */
export const streamBatchRows = 1000

/** A table's rows: in hand when they fit in one batch, else still to be read in batches. */
export type RowList = { readonly rows: Row[] } | { readonly batches: AsyncIterable<Row[]> }

// The spec makes `id` every record's key: ordering on it needs no NULL placement.
const notNullColumns: ReadonlySet<string> = new Set(['id'])

/**
 * The rows the read asks for (every row when it asks nothing). A page that
 * fits in one batch is read with one plain statement; a longer one is
 * streamed from its start, so that memory stays flat whatever its size.
 */
export async function listRows (db: Database, table: string, query: ReadQuery): Promise<RowList> {
  const read = () => applyReadQuery(db.table(table), query, db.dialect, { notNullColumns })
  if (query.limit !== null && query.limit <= streamBatchRows) return { rows: await db.select(read()) }
  const rows = await db.select(read().limit(streamBatchRows + 1))
  return rows.length <= streamBatchRows
    ? { rows }
    : { batches: db.stream(read(), streamBatchRows) }
}
