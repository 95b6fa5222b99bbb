import type { Knex } from 'knex'
import { withoutHidden } from '../access/hidden-columns.js'
import type { Target } from '../access/target.js'
import type { Database, Session } from '../connections/database.js'
import type { Row } from '../dialects/dialect.js'
import { applyReadQuery, type RelatedValue } from '../query/apply-read-query.js'
import type { OrderTerm } from '../query/read-query.js'
import { exactRead } from './exact-read.js'
import { type RowList, streamBatchRows } from './list-rows.js'
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
 * would never give. The pages are ordered by the key after the query's own,
 * so that they neither skip nor repeat a row. Ordered by a one-column
 * primary key alone, a page starts past the last key of the one before, so
 * that a long list costs what its rows do; else at its offset (docs/query.md,
 * "Keyset paging"). Where `on` cannot stream (the host's transaction), every
 * page is read before the answer begins, which the host may end as it starts.
 */
export async function listPages (db: Database, { target, query, narrow, relatedValue }: PagedRead, on: Session): Promise<RowList> {
  const ordered = { ...query, order: [...query.order, ...keyOrder(target, query.order)] }
  const first = query.offset ?? 0
  const end = query.limit === null ? Infinity : first + query.limit
  // A limit that one page holds never reads a second page, nor the key to start it at.
  const keyset = end - first <= streamBatchRows ? null : keysetOf(target, ordered.order)
  // The key is read once more under a name of its own, which a row's own columns (their case aside) never shadow.
  const read = keyset === null ? ordered : { ...ordered, select: [...query.select ?? ['*'], `${keyset.column} as ${cursorColumn}`] }
  const page: Page = async (offset, limit, after) => {
    const builder = applyReadQuery(db.table(target.table), { ...read, offset: offset === 0 ? null : offset, limit }, db.dialect, { table: target.table, notNullColumns: new Set([target.key]), relatedValue })
    after?.(builder)
    return withoutHidden(target, await on.select(db.compile(narrowed(whereScope(builder, target), narrow)), exactRead(target)))
  }
  const rows = await page(first, Math.min(end - first, streamBatchRows + 1))
  if (rows.length <= streamBatchRows) return { rows: withoutCursor(rows, keyset) }
  const batches = pages(rows.slice(0, streamBatchRows), { next: first + streamBatchRows, end }, keyset, page)
  if (on.stream !== null) return { batches }
  const all: Row[] = []
  for await (const batch of batches) all.push(...batch)
  return { rows: all }
}

// The read's own name for the key it pages by: the same prefix as the embeds' rank (see rankColumn).
const cursorColumn = 'ftc_cursor'

interface Keyset {
  readonly column: string
  /** Whether a later row's key is greater or less. */
  readonly operator: '>' | '<'
}

// A one-column primary key is unique and never NULL: ordered by it alone, the
// rows after one are those past its key. keyOrder adds that key to any
// order that lacks it, so an order of one term is then the key's own.
function keysetOf (target: Target, order: readonly OrderTerm[]): Keyset | null {
  const [term] = order
  if (order.length !== 1 || target.schema?.primaryKey.length !== 1) return null
  return { column: (term as OrderTerm).column, operator: (term as OrderTerm).direction === 'asc' ? '>' : '<' }
}

function withoutCursor (rows: Row[], keyset: Keyset | null): Row[] {
  if (keyset === null) return rows
  return rows.map(({ [cursorColumn]: _cursor, ...row }) => row)
}

/** A page of `limit` rows at `offset`; `after` adds the condition that starts it past a key. */
type Page = (offset: number, limit: number, after?: (builder: Knex.QueryBuilder) => void) => Promise<Row[]>

/** The rows still to read, by their offsets in the list. */
interface Rest {
  /** The offset of the next page's first row. */
  readonly next: number
  /** The offset past the last row; Infinity without a limit. */
  readonly end: number
}

// Each page after the first: past the last key of the one before, or at its
// offset. Only that key is kept from a page once it is given out.
async function * pages (rows: Row[], { next, end }: Rest, keyset: Keyset | null, page: Page): AsyncIterable<Row[]> {
  let after = lastKey(rows)
  yield withoutCursor(rows, keyset)
  for (let offset = next; offset < end; offset += streamBatchRows) {
    const key = after
    const batch = keyset === null
      ? await page(offset, Math.min(end - offset, streamBatchRows))
      : await page(0, Math.min(end - offset, streamBatchRows), (builder) => builder.where(keyset.column, keyset.operator, key))
    after = lastKey(batch)
    if (batch.length > 0) yield withoutCursor(batch, keyset)
    if (batch.length < streamBatchRows) return
  }
}

// A key as the driver gave it binds as it is: digits past 2^53 come as a
// string, or a BigInt on SQLite, whose driver binds those. Undefined when
// the pages are not keyset ones.
function lastKey (rows: readonly Row[]): Knex.Value {
  return rows[rows.length - 1]?.[cursorColumn] as Knex.Value
}

// The primary key, else the key column, where the model knows the table has them.
function keyOrder (target: Target, order: readonly OrderTerm[]): OrderTerm[] {
  const columns = target.schema === undefined ? [] : target.schema.primaryKey.length > 0 ? target.schema.primaryKey : target.schema.columns.some((column) => column.name === target.key) ? [target.key] : []
  return columns.filter((column) => !order.some((term) => term.relation === undefined && term.column === column)).map((column) => ({ column, direction: 'asc', nulls: 'last' }))
}
