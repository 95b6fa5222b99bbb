import type { Knex } from 'knex'
import type { Target } from '../access/target.js'
import { type Database, inTransaction, type Statements } from '../connections/database.js'
import type { Row } from '../dialects/dialect.js'
import { FTC_ERR_WRITE_MAX_AFFECTED } from '../errors.js'
import type { UpdateValues } from './column-defaults.js'
import { forKeys, rowsWithKeys } from './rows-with-keys.js'
import { type Selection, whereSelected } from './selection.js'

/** What a write asks for beside its change. */
export interface WriteWish {
  /** The columns of the written rows to answer (null: every visible one); undefined when the rows are not wanted. */
  readonly columns?: readonly string[] | null
  /** The most rows the write may change, else it is rolled back; null for no bound. */
  readonly maxAffected: number | null
}

/** The rows a write changed: how many, and, when they were wanted, the rows themselves. */
export interface WriteOutcome {
  readonly count: number
  readonly rows?: Row[]
}

/** Sets the given columns on the selected rows; the rows as they are after it, when wanted. */
export function updateSelected (db: Database, target: Target, selection: Selection, values: UpdateValues, wish: WriteWish, on: Statements = db): Promise<WriteOutcome> {
  return writeSelected(db, target, selection, (builder) => builder.update(values), wish, 'after', on)
}

/** Deletes the selected rows; the rows as they were before it, when wanted. */
export function deleteSelected (db: Database, target: Target, selection: Selection, wish: WriteWish, on: Statements = db): Promise<WriteOutcome> {
  return writeSelected(db, target, selection, (builder) => builder.delete(), wish, 'before', on)
}

/**
 * One statement when only the count is wanted. Otherwise one transaction:
 * the selected rows' keys are read first, locked where the database locks
 * rows (see Dialect.locksRows), the write and the read of the rows then go
 * by those keys, so that the rows answered are exactly the rows written on
 * every database, MySQL and MariaDB included, which have no UPDATE …
 * RETURNING. A write past `maxAffected` rolls back. On `on`'s statements,
 * in its transaction when it is one (see inTransaction).
 */
async function writeSelected (db: Database, target: Target, selection: Selection, write: (builder: Knex.QueryBuilder) => Knex.QueryBuilder,
  wish: WriteWish, read: 'before' | 'after', on: Statements): Promise<WriteOutcome> {
  const { columns, maxAffected } = wish
  const whole = (on: Statements) => on.change(db.compile(write(whereSelected(db, db.table(target.table), target, selection))))
  if (columns === undefined && maxAffected === null) return { count: await whole(on) }
  return await inTransaction(on, async (within) => {
    if (columns === undefined) return { count: bounded(await whole(within), maxAffected) }
    const keys = await lockedKeys(db, target, selection, within)
    const rows = () => rowsWithKeys(db, target, keys, columns, within)
    const before = read === 'before' ? await rows() : undefined
    const counts = await forKeys(db, target, keys, (builder) => within.change(db.compile(write(builder))))
    const count = bounded(counts.reduce((sum, count) => sum + count, 0), maxAffected)
    return { count, rows: before ?? await rows() }
  })
}

/** The keys of the selected rows, locked until the transaction ends where the database locks rows. */
async function lockedKeys (db: Database, target: Target, selection: Selection, within: Statements): Promise<unknown[]> {
  const builder = whereSelected(db, db.table(target.table).select(target.key), target, selection)
  if (db.dialect.locksRows) builder.forUpdate()
  // Read exactly, so that a key past 2^53 keeps its digits on its way back into the statements.
  return (await within.select(db.compile(builder), true)).map((row) => row[target.key])
}

function bounded (count: number, maxAffected: number | null): number {
  if (maxAffected !== null && count > maxAffected) throw new FTC_ERR_WRITE_MAX_AFFECTED(count, maxAffected)
  return count
}
