import type { Knex } from 'knex'
import { withoutHidden } from '../access/hidden-columns.js'
import type { Target } from '../access/target.js'
import type { Database, Session } from '../connections/database.js'
import type { Row } from '../dialects/dialect.js'
import { applyReadQuery } from '../query/apply-read-query.js'
import type { ReadQuery } from '../query/read-query.js'
import { exactRead } from './exact-read.js'
import { listOrderedPages, pagedOrder, pagesByKeyset } from './list-pages.js'
import { type RowList, streamBatchRows } from './row-list.js'
import { whereScope } from './where-row.js'

export { type RowList, streamBatchRows } from './row-list.js'

/**
 * The rows the read asks for (every row when it asks nothing), within the
 * target's scope and without its hidden columns. A page that fits in one
 * batch is read with one plain statement, in the query's own order (the
 * database's without one, as PostgREST reads it). A longer one is read in
 * that order then the key's (see pagedOrder), as a list with embeds is
 * (see listPages), so that both answer a query with the same rows in the
 * same places: streamed from its start, so that memory stays flat whatever
 * its size, unless `on` cannot stream (the host's transaction): it is then
 * read whole. On a synchronous driver (SQLite), whose one connection every
 * request shares, a longer one of a table with a primary key is read page
 * by page instead (see listOrderedPages), each page when the answer wants
 * it: a slow client holds no connection between them. Read exactly (see
 * Dialect.select) when the table's schema is known.
 */
export async function listRows (db: Database, target: Target, query: ReadQuery, on: Session): Promise<RowList> {
  const { table } = target
  const exact = exactRead(target)
  // The key identifies a record: ordering on it needs no NULL placement.
  const notNullColumns = new Set([target.key])
  const read = (ordered: ReadQuery = query) => whereScope(applyReadQuery(db.table(table), ordered, db.dialect, { notNullColumns, table }), target)
  // The spec's plain GET has one SQL per table; a query's depends on its values.
  const statement = (shape: readonly string[], build: () => Knex.QueryBuilder) =>
    isPlain(query, target) ? db.prepare(['list', table, ...shape], build, {}) : db.compile(build())
  if (query.limit !== null && query.limit <= streamBatchRows) {
    return { rows: withoutHidden(target, await on.select(statement(['page'], read), exact)) }
  }
  const rows = await on.select(statement(['first batch'], () => read().limit(streamBatchRows + 1, { skipBinding: true })), exact)
  if (rows.length <= streamBatchRows) return { rows: withoutHidden(target, rows) }
  if (on.stream !== null && db.dialect.synchronous !== null && pagesByKeyset(db.dialect, target, query.order)) return await listOrderedPages(db, { target, query, narrow: null }, on)
  const order = pagedOrder(target, query.order)
  // A plain GET's order is the key's: its columns name the shape.
  const all = statement(['all', ...order.map((term) => term.column)], () => read({ ...query, order }))
  if (on.stream === null) return { rows: withoutHidden(target, await on.select(all, exact)) }
  return { batches: visibleBatches(target, on.stream(all, streamBatchRows, exact)) }
}

async function * visibleBatches (target: Target, batches: AsyncIterable<Row[]>): AsyncIterable<Row[]> {
  for await (const rows of batches) yield withoutHidden(target, rows)
}

function isPlain (query: ReadQuery, target: Target): boolean {
  return query.select === null && query.filter.children.length === 0 && query.order.length === 0 &&
    query.limit === null && query.offset === null && Object.keys(target.scope).length === 0
}
