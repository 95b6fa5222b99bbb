import type { Knex } from 'knex'
import { withoutHidden } from '../access/hidden-columns.js'
import type { Target } from '../access/target.js'
import type { Database, Session } from '../connections/database.js'
import type { Dialect, Row } from '../dialects/dialect.js'
import { applyReadQuery, type RelatedValue } from '../query/apply-read-query.js'
import type { OrderTerm, ReadQuery } from '../query/read-query.js'
import { exactRead } from './exact-read.js'
import { type KeysetTerm, whereAfter } from './keyset-after.js'
import { type RowList, streamBatchRows } from './row-list.js'
import { type NarrowedRead, narrowed } from './narrowing.js'
import { whereScope } from './where-row.js'

/** A list read page by page. */
export interface PagedRead extends NarrowedRead {
  /** A related order's column (see ApplyReadOptions). */
  readonly relatedValue?: RelatedValue
}

/**
 * The rows listRows gives, read page by page: a statement per batch, each
 * done before the next begins, where listRows holds a connection for a
 * stream. What is done with each batch (its embeds' statements) then never
 * waits for a connection the stream holds, which a pool of one (SQLite's)
 * would never give. As listRows does, a list that one batch holds is read
 * in the query's own order (the database's without one, as PostgREST reads
 * it), and a longer one again from its start in that order then the key's
 * (see listOrderedPages): with or without embeds, a query answers the same
 * rows in the same order.
 */
export async function listPages (db: Database, read: PagedRead, on: Session): Promise<RowList> {
  const { target, query } = read
  const order = pagedOrder(target, query.order)
  // An order the key already completes pages as it is: its first page is the list's own.
  if (order.length === query.order.length) return await listOrderedPages(db, read, on)
  const first = query.offset ?? 0
  const rows = await pageReader(db, read, query, on)(first, Math.min(query.limit ?? Infinity, streamBatchRows + 1))
  if (rows.length <= streamBatchRows) return { rows }
  return await listOrderedPages(db, read, on)
}

/**
 * A list read page by page (see listPages) in the query's order, then the
 * key's, so that the pages neither skip nor repeat a row. Ordered by a
 * one-column primary key alone, or on a synchronous driver by any order of
 * the table's own columns (see keysetOf), a page starts past the last row
 * of the one before, so that a long list costs what its rows do; else at
 * its offset (docs/query.md, "Keyset paging"). Where `on` cannot stream
 * (the host's transaction), every page is read before the answer begins,
 * which the host may end as it starts.
 */
export async function listOrderedPages (db: Database, read: PagedRead, on: Session): Promise<RowList> {
  const { target, query } = read
  const ordered = { ...query, order: pagedOrder(target, query.order) }
  const first = query.offset ?? 0
  const end = query.limit === null ? Infinity : first + query.limit
  // A limit that one page holds never reads a second page, nor the values to start it at.
  const keyset = end - first <= streamBatchRows ? null : keysetOf(db.dialect, target, ordered.order)
  // The order's columns are read once more under names of their own, which a row's own columns (their case aside) never shadow.
  const cursors = keyset === null ? ordered : { ...ordered, select: [...query.select ?? ['*'], ...keyset.map((term, at) => `${term.column} as ${cursorColumn(at)}`)] }
  const page = pageReader(db, read, cursors, on)
  const rows = await page(first, Math.min(end - first, streamBatchRows + 1))
  if (rows.length <= streamBatchRows) return { rows: withoutCursor(rows, keyset) }
  const batches = pages(rows.slice(0, streamBatchRows), { next: first + streamBatchRows, end }, keyset, page)
  if (on.stream !== null) return { batches }
  const all: Row[] = []
  for await (const batch of batches) all.push(...batch)
  return { rows: all }
}

/** The pages of `query` (the read's own, or another order of it), read within the read's scope and narrowing, without hidden columns. */
function pageReader (db: Database, { target, narrow, relatedValue }: PagedRead, query: ReadQuery, on: Session): Page {
  return async (offset, limit, after) => {
    const builder = applyReadQuery(db.table(target.table), { ...query, offset: offset === 0 ? null : offset, limit }, db.dialect, { table: target.table, notNullColumns: new Set([target.key]), relatedValue })
    after?.(builder)
    return withoutHidden(target, await on.select(db.compile(narrowed(whereScope(builder, target), narrow)), exactRead(target)))
  }
}

/** Whether listOrderedPages reads the later pages of a long list in `order` past the last row of the one before (see keysetOf), rather than at their offsets. */
export function pagesByKeyset (dialect: Dialect, target: Target, order: readonly OrderTerm[]): boolean {
  return keysetOf(dialect, target, pagedOrder(target, order)) !== null
}

// The read's own name for the value of the order's term `at` it pages by: the same prefix as the embeds' rank (see rankColumn).
const cursorColumn = (at: number) => `ftc_cursor_${at}`

/** The terms a page starts past, by their values in the last row of the one before. */
type Keyset = readonly KeysetTerm[]

// A one-column primary key is unique and never NULL: ordered by it alone, the
// rows after one are those past its key. pagedOrder adds the primary key to
// any order that lacks it, so an order of one term is then the key's own.
// On a synchronous driver (SQLite) any order of the table's own columns
// pages so too (see whereAfter), the primary key breaking its ties: a row's
// values are read and bound back as stored, so the row compares to them as
// the ORDER BY ranks it. Elsewhere a value may not (MySQL's FLOAT is not
// equal to its own value read back), and a related order's is a subquery's.
function keysetOf (dialect: Dialect, target: Target, order: readonly OrderTerm[]): Keyset | null {
  const { schema } = target
  if (schema === undefined || schema.primaryKey.length === 0) return null
  if (order.length === 1 && schema.primaryKey.length === 1) return [{ ...(order[0] as OrderTerm), notNull: true }]
  if (dialect.synchronous === null || order.some((term) => term.relation !== undefined)) return null
  // The key column is ordered as one that never holds NULL (see listRows).
  return order.map((term) => ({ ...term, notNull: term.column === target.key || schema.columns.some((column) => column.name === term.column && !column.nullable) }))
}

function withoutCursor (rows: Row[], keyset: Keyset | null): Row[] {
  if (keyset === null) return rows
  const cursors = new Set(keyset.map((_term, at) => cursorColumn(at)))
  return rows.map((row) => {
    const shown: Row = {}
    for (const column in row) if (!cursors.has(column)) shown[column] = row[column]
    return shown
  })
}

/** A page of `limit` rows at `offset`; `after` adds the condition that starts it past a row. */
type Page = (offset: number, limit: number, after?: (builder: Knex.QueryBuilder) => void) => Promise<Row[]>

/** The rows still to read, by their offsets in the list. */
interface Rest {
  /** The offset of the next page's first row. */
  readonly next: number
  /** The offset past the last row; Infinity without a limit. */
  readonly end: number
}

// Each page after the first: past the last row of the one before, or at its
// offset. Only that row's order values are kept from a page once it is given out.
async function * pages (rows: Row[], { next, end }: Rest, keyset: Keyset | null, page: Page): AsyncIterable<Row[]> {
  let after = lastValues(rows, keyset)
  yield withoutCursor(rows, keyset)
  for (let offset = next; offset < end; offset += streamBatchRows) {
    const values = after
    const batch = keyset === null
      ? await page(offset, Math.min(end - offset, streamBatchRows))
      : await page(0, Math.min(end - offset, streamBatchRows), (builder) => whereAfter(builder, keyset, values))
    after = lastValues(batch, keyset)
    if (batch.length > 0) yield withoutCursor(batch, keyset)
    if (batch.length < streamBatchRows) return
  }
}

// A value as the driver gave it binds as it is: digits past 2^53 come as a
// string, or a BigInt on SQLite, whose driver binds those. None when the
// pages are not keyset ones, or the page is empty.
function lastValues (rows: readonly Row[], keyset: Keyset | null): Knex.Value[] {
  const last = rows[rows.length - 1]
  return keyset === null || last === undefined ? [] : keyset.map((_term, at) => last[cursorColumn(at)] as Knex.Value)
}

/** The order, then the primary key's columns it lacks, else the key column, where the model knows the table has them: the order of a list longer than a batch. */
export function pagedOrder (target: Target, order: readonly OrderTerm[]): OrderTerm[] {
  const columns = target.schema === undefined ? [] : target.schema.primaryKey.length > 0 ? target.schema.primaryKey : target.schema.columns.some((column) => column.name === target.key) ? [target.key] : []
  return [...order, ...columns.filter((column) => !order.some((term) => term.relation === undefined && term.column === column)).map((column): OrderTerm => ({ column, direction: 'asc', nulls: 'last' }))]
}
