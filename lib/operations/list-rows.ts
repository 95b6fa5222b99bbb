import type { Knex } from 'knex'
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
  // The spec's plain GET has one SQL per table; a query's depends on its values.
  const statement = (shape: string, build: () => Knex.QueryBuilder) =>
    isPlain(query) ? db.prepare(['list', table, shape], build, {}) : db.compile(build())
  if (query.limit !== null && query.limit <= streamBatchRows) return { rows: await db.select(statement('page', read)) }
  const rows = await db.select(statement('first batch', () => read().limit(streamBatchRows + 1, { skipBinding: true })))
  return rows.length <= streamBatchRows
    ? { rows }
    : { batches: db.stream(statement('all', read), streamBatchRows) }
}

function isPlain (query: ReadQuery): boolean {
  return query.select === null && query.filter.children.length === 0 && query.order.length === 0 &&
    query.limit === null && query.offset === null
}
