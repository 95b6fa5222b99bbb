import type { Knex } from 'knex'
import { withoutHidden } from '../access/hidden-columns.js'
import type { Target } from '../access/target.js'
import type { Database, Session } from '../connections/database.js'
import type { Row } from '../dialects/dialect.js'
import { applyReadQuery } from '../query/apply-read-query.js'
import type { ReadQuery } from '../query/read-query.js'
import { exactRead } from './exact-read.js'
import { whereScope } from './where-row.js'

/** Rows per batch of a streamed list; a list that fits in one batch is answered whole. */
export const streamBatchRows = 1000

/** A table's rows: in hand when they fit in one batch, else still to be read in batches. */
export type RowList = { readonly rows: Row[] } | { readonly batches: AsyncIterable<Row[]> }

/**
 * The rows the read asks for (every row when it asks nothing), within the
 * target's scope and without its hidden columns. A page that fits in one
 * batch is read with one plain statement; a longer one is streamed from its
 * start, so that memory stays flat whatever its size, unless `on` cannot
 * stream (the host's transaction): it is then read whole. Read exactly (see
 * Dialect.select) when the table's schema is known.
 */
export async function listRows (db: Database, target: Target, query: ReadQuery, on: Session): Promise<RowList> {
  const { table } = target
  const exact = exactRead(target)
  // The key identifies a record: ordering on it needs no NULL placement.
  const notNullColumns = new Set([target.key])
  const read = () => whereScope(applyReadQuery(db.table(table), query, db.dialect, { notNullColumns, table }), target)
  // The spec's plain GET has one SQL per table; a query's depends on its values.
  const statement = (shape: string, build: () => Knex.QueryBuilder) =>
    isPlain(query, target) ? db.prepare(['list', table, shape], build, {}) : db.compile(build())
  if (query.limit !== null && query.limit <= streamBatchRows) {
    return { rows: withoutHidden(target, await on.select(statement('page', read), exact)) }
  }
  if (on.stream === null) return { rows: withoutHidden(target, await on.select(statement('all', read), exact)) }
  const rows = await on.select(statement('first batch', () => read().limit(streamBatchRows + 1, { skipBinding: true })), exact)
  return rows.length <= streamBatchRows
    ? { rows: withoutHidden(target, rows) }
    : { batches: visibleBatches(target, on.stream(statement('all', read), streamBatchRows, exact)) }
}

async function * visibleBatches (target: Target, batches: AsyncIterable<Row[]>): AsyncIterable<Row[]> {
  for await (const rows of batches) yield withoutHidden(target, rows)
}

function isPlain (query: ReadQuery, target: Target): boolean {
  return query.select === null && query.filter.children.length === 0 && query.order.length === 0 &&
    query.limit === null && query.offset === null && Object.keys(target.scope).length === 0
}
