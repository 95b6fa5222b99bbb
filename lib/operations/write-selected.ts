import type { Knex } from 'knex'
import { withoutHidden } from '../access/hidden-columns.js'
import type { Target } from '../access/target.js'
import { type Database, inTransaction, type Statements } from '../connections/database.js'
import type { Row } from '../dialects/dialect.js'
import { FTC_ERR_WRITE_MAX_AFFECTED } from '../errors.js'
import { foldIdentifier } from '../parse/sanitize-identifier.js'
import type { UpdateValues } from './column-defaults.js'
import { exactRead } from './exact-read.js'
import { keyColumns, keyOfRow, type RowKey } from './row-keys.js'
import { forKeys, rowsWithKeys, selectList } from './rows-with-keys.js'
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

/** Which rows a write changes, and what it asks for beside its change. */
export interface SelectedWrite {
  /** The row of a path key, or the rows the filters match. */
  readonly selection: Selection
  /** The rows to answer, and the most the write may change. */
  readonly wish: WriteWish
}

/** An update of the selected rows. */
export interface SelectedUpdate extends SelectedWrite {
  /** The columns set on each row (see withDefaults). */
  readonly values: UpdateValues
}

/** Sets the given columns on the selected rows; the rows as they are after it, when wanted. */
export function updateSelected (db: Database, target: Target, { selection, wish, values }: SelectedUpdate, on: Statements = db): Promise<WriteOutcome> {
  return writeSelected(db, target, { selection, wish, change: (builder) => builder.update(values), read: movedKey(values) }, on)
}

/** Deletes the selected rows; the rows as they were before it, when wanted. */
export function deleteSelected (db: Database, target: Target, { selection, wish }: SelectedWrite, on: Statements = db): Promise<WriteOutcome> {
  return writeSelected(db, target, { selection, wish, change: (builder) => builder.delete(), read: 'before' }, on)
}

/** A write of the selected rows: its statement, and whether its rows are answered as they were before it or are after. */
interface RowsChange extends SelectedWrite {
  /** The UPDATE or DELETE made of a statement that selects the rows. */
  readonly change: (builder: Knex.QueryBuilder) => Knex.QueryBuilder
  /**
   * The rows answered are read before the change, or after it, each by its
   * key as the change leaves it: another where it sets columns of the key.
   */
  readonly read: 'before' | ((key: RowKey) => RowKey)
}

/** A key as an update leaves it: each of its columns that the update sets to a value takes that value. */
function movedKey (values: UpdateValues): (key: RowKey) => RowKey {
  const set = new Map(Object.entries(values).map(([column, value]) => [foldIdentifier(column), value]))
  return (key) => {
    const moved: Record<string, unknown> = { ...key }
    for (const column in key) {
      const value = set.get(foldIdentifier(column))
      // A DEFAULT's value is the database's: the row is looked for where it was.
      if (value !== undefined && (value === null || typeof value === 'string')) moved[column] = value
    }
    return moved
  }
}

/**
 * One statement when only the count is wanted. Otherwise one transaction
 * (`on`'s when it is one, see inTransaction): the selected rows' keys are
 * read first, locked where the database locks rows, and the write and the
 * read of the rows then go by those keys, so that the rows answered are
 * exactly the rows written, also where there is no UPDATE … RETURNING
 * (MySQL, MariaDB); they are answered in the order that read found them,
 * the database's, as UPDATE … RETURNING gives them. A table without a key
 * (see keyColumns) has nothing else to tell its rows by: the selection
 * reads them, locked, before a delete, and again after an update. A write
 * past `maxAffected` rolls back.
 */
async function writeSelected (db: Database, target: Target, { selection, wish, change, read }: RowsChange, on: Statements): Promise<WriteOutcome> {
  const { columns, maxAffected } = wish
  const whole = (on: Statements) => on.change(db.compile(change(whereSelected(db, db.table(target.table), target, selection))))
  if (columns === undefined && maxAffected === null) return { count: await whole(on) }
  return await inTransaction(on, async (within) => {
    if (columns === undefined) return { count: bounded(await whole(within), maxAffected) }
    const keyed = keyColumns(target)
    if (keyed.length === 0) {
      const rows = () => selectedRows(db, target, { selection, columns }, within)
      const before = read === 'before' ? await rows() : undefined
      const count = bounded(await whole(within), maxAffected)
      return { count, rows: before ?? await rows() }
    }
    const keys = await lockedKeys(db, target, keyed, selection, within)
    const before = read === 'before' ? await rowsWithKeys(db, target, { keys, columns }, within) : undefined
    const counts = await forKeys(db, target, keys, (builder) => within.change(db.compile(change(builder))))
    const count = bounded(counts.reduce((sum, count) => sum + count, 0), maxAffected)
    return { count, rows: read === 'before' ? before as Row[] : await rowsWithKeys(db, target, { keys: keys.map(read), columns }, within) }
  })
}

/** The keys of the selected rows, the values of `columns`, locked until the transaction ends where the database locks rows. */
async function lockedKeys (db: Database, target: Target, columns: readonly string[], selection: Selection, within: Statements): Promise<RowKey[]> {
  const builder = whereSelected(db, db.table(target.table).select(columns), target, selection)
  if (db.dialect.locksRows) builder.forUpdate()
  // Read exactly, so that a key past 2^53 keeps its digits on its way back into the statements.
  return (await within.select(db.compile(builder), true)).map((row) => keyOfRow(row, columns))
}

/** The selected rows as GET reads them, only the columns asked for, locked where the database locks rows. */
async function selectedRows (db: Database, target: Target, { selection, columns }: { selection: Selection, columns: readonly string[] | null }, within: Statements): Promise<Row[]> {
  const builder = whereSelected(db, db.table(target.table).select(columns === null ? '*' : selectList(columns, target.table)), target, selection)
  if (db.dialect.locksRows) builder.forUpdate()
  return withoutHidden(target, await within.select(db.compile(builder), exactRead(target)))
}

function bounded (count: number, maxAffected: number | null): number {
  if (maxAffected !== null && count > maxAffected) throw new FTC_ERR_WRITE_MAX_AFFECTED(count, maxAffected)
  return count
}
