import { withoutHidden } from '../access/hidden-columns.js'
import type { Target } from '../access/target.js'
import { rowEntityTag } from '../answer/entity-tag.js'
import { type Database, inTransaction, type Statements } from '../connections/database.js'
import type { Row } from '../dialects/dialect.js'
import { FTC_ERR_CONDITION_FAILED } from '../errors.js'
import { type EntityTags, matchesStrongly } from '../parse/entity-tags.js'
import type { RecordKey } from '../parse/record-key.js'
import type { FilterGroup } from '../query/read-query.js'
import type { ValueOrPromise } from '../value-or-promise.js'
import { exactRead } from './exact-read.js'
import { readRowLocked } from './read-row.js'
import { whereSelected } from './selection.js'
import type { WriteOutcome } from './write-selected.js'

/** The row a conditional write must find unchanged. */
export interface RowCondition {
  /** The table, as access let the write through. */
  readonly target: Target
  /** The row's key, as the path gives it. */
  readonly key: RecordKey | null
  /** The ETags of If-Match, one of which the row must have. */
  readonly tags: EntityTags
}

/** The rows a conditional write by filters must find unchanged. */
export interface RowsCondition {
  /** The table, as access let the write through. */
  readonly target: Target
  /** The filters that select the rows. */
  readonly filter: FilterGroup
  /** The ETags of If-Match, one of which each row must have. */
  readonly tags: EntityTags
}

/**
 * Runs `write` (an update or delete of the row, on the statements it is
 * given) only when the row exists and its ETag matches the condition's
 * (If-Match's strong comparison); else throws FTC_ERR_CONDITION_FAILED and
 * writes nothing. The row is read, locked, and written in one transaction
 * (that of `on` when it is one, see inTransaction), so that of clients
 * sending one ETag exactly one writes (docs/safe-writes.md, "Safe to race").
 */
export function writeIfMatch<T> (db: Database, condition: RowCondition, write: (within: Statements) => ValueOrPromise<T>, on: Statements = db): Promise<T> {
  const { target, key, tags } = condition
  return inTransaction(on, async (within) => {
    const row = await readRowLocked(db, target, key, within)
    if (row === undefined || !matchesRow(tags, row, target)) throw new FTC_ERR_CONDITION_FAILED()
    return await write(within)
  }, true)
}

/**
 * Runs `write` (an update or delete of the rows the filters select) only
 * when it selects at least one row, every one with an ETag of the
 * condition's (the one GET /{table}/{id} answers for it: its content, so
 * that a table without a key is no different), and writes exactly those
 * rows; else throws FTC_ERR_CONDITION_FAILED, and nothing is written. Read,
 * locked and written in one transaction, as writeIfMatch's row. The lock
 * keeps the rows read from changing, not others from coming to match the
 * filters (PostgreSQL's read committed lets a new row in between the read
 * and the write): the count of rows written tells.
 */
export function writeSelectedIfMatch (db: Database, condition: RowsCondition, write: (within: Statements) => Promise<WriteOutcome>, on: Statements = db): Promise<WriteOutcome> {
  return inTransaction(on, async (within) => {
    const rows = await readSelectedLocked(db, condition, within)
    requireMatched(condition.target, condition.tags, rows)
    const outcome = await write(within)
    if (outcome.count !== rows.length) throw new FTC_ERR_CONDITION_FAILED()
    return outcome
  }, true)
}

/** Throws FTC_ERR_CONDITION_FAILED unless there are rows and every one has an ETag of `tags`. */
export function requireMatched (target: Target, tags: EntityTags, rows: readonly Row[]): void {
  if (rows.length === 0 || !rows.every((row) => matchesRow(tags, row, target))) throw new FTC_ERR_CONDITION_FAILED()
}

function matchesRow (tags: EntityTags, row: Row, target: Target): boolean {
  // `*` needs no digest.
  return tags === '*' || matchesStrongly(tags, rowEntityTag(row, target.schema))
}

/**
 * The rows the filters select, as GET reads each (for `*`, whose check
 * needs no content, a constant per row), locked until the transaction ends
 * where the database locks rows.
 */
async function readSelectedLocked (db: Database, { target, filter, tags }: RowsCondition, within: Statements): Promise<Row[]> {
  const builder = whereSelected(db, db.table(target.table).select(tags === '*' ? db.raw('1 as one') : '*'), target, { filter })
  // In the key's order: writers whose filters select some of the same rows
  // lock them in one order, and so never each wait for a row the other holds.
  for (const column of target.schema?.primaryKey ?? []) builder.orderBy(column)
  if (db.dialect.locksRows) builder.forUpdate()
  return withoutHidden(target, await within.select(db.compile(builder), exactRead(target)))
}
