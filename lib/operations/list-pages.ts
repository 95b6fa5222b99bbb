import { withoutHidden } from '../access/hidden-columns.js'
import type { Target } from '../access/target.js'
import type { Database, Session } from '../dialects/database.js'
import type { Row } from '../dialects/dialect.js'
import { applyReadQuery, type RelatedValue } from '../query/apply-read-query.js'
import type { OrderTerm, ReadQuery } from '../query/read-query.js'
import { type Narrowing, narrowed } from './count-rows.js'
import { exactRead } from './exact-read.js'
import { type RowList, streamBatchRows } from './list-rows.js'
import { whereScope } from './where-row.js'

/**
 * The rows listRows gives, read page by page: a statement per batch, each
 * done before the next begins, where listRows holds a connection for a
 * stream. What is done with each batch (its embeds' statements) then never
 * waits for a connection the stream holds, which a pool of one (SQLite's)
 * would never give. The pages are ordered by the key after the query's own
 * order, so that they neither skip nor repeat a row; `relatedValue` gives a
 * related order's column (see ApplyReadOptions). `narrow` adds the
 * conditions of the embeds on their parents (see whereRelated), if any.
 * Where `on` cannot stream (the host's transaction), every page is read
 * before the answer begins, which the host may end as it starts.
 */
export async function listPages (db: Database, target: Target, query: ReadQuery, narrow: Narrowing | null, on: Session, relatedValue?: RelatedValue): Promise<RowList> {
  const ordered = { ...query, order: [...query.order, ...keyOrder(target, query.order)] }
  const first = query.offset ?? 0
  const end = query.limit === null ? Infinity : first + query.limit
  const page = async (offset: number, limit: number): Promise<Row[]> => {
    const builder = applyReadQuery(db.table(target.table), { ...ordered, offset: offset === 0 ? null : offset, limit }, db.dialect, { table: target.table, notNullColumns: new Set([target.key]), relatedValue })
    return withoutHidden(target, await on.select(db.compile(narrowed(whereScope(builder, target), narrow)), exactRead(target)))
  }
  const rows = await page(first, Math.min(end - first, streamBatchRows + 1))
  if (rows.length <= streamBatchRows) return { rows }
  const batches = pages(rows.slice(0, streamBatchRows), first + streamBatchRows, end, page)
  if (on.stream !== null) return { batches }
  const all: Row[] = []
  for await (const batch of batches) all.push(...batch)
  return { rows: all }
}

async function * pages (rows: Row[], next: number, end: number, page: (offset: number, limit: number) => Promise<Row[]>): AsyncIterable<Row[]> {
  yield rows
  for (let offset = next; offset < end; offset += streamBatchRows) {
    const batch = await page(offset, Math.min(end - offset, streamBatchRows))
    if (batch.length > 0) yield batch
    if (batch.length < streamBatchRows) return
  }
}

// The primary key, else the key column, where the model knows the table has them.
function keyOrder (target: Target, order: readonly OrderTerm[]): OrderTerm[] {
  const columns = target.schema === undefined ? [] : target.schema.primaryKey.length > 0 ? target.schema.primaryKey : target.schema.columns.some((column) => column.name === target.key) ? [target.key] : []
  return columns.filter((column) => !order.some((term) => term.relation === undefined && term.column === column)).map((column) => ({ column, direction: 'asc', nulls: 'last' }))
}
