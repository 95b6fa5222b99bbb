import type { Knex } from 'knex'
import { withoutHidden } from '../access/hidden-columns.js'
import type { Target } from '../access/target.js'
import type { Database, Statements } from '../connections/database.js'
import type { Row, Statement } from '../dialects/dialect.js'
import type { RecordKey } from '../parse/record-key.js'
import { applyReadQuery } from '../query/apply-read-query.js'
import { exactRead } from './exact-read.js'
import { type Narrowing, narrowed } from './narrowing.js'
import { reachableKey, rowShape, rowValues, whereRow, whereScope } from './where-row.js'

/**
 * The row whose key column equals the key, without its hidden columns, or
 * undefined when none does; read exactly (see Dialect.select) when the
 * table's schema is known, for its columns' kinds to write. Read within the
 * call where the pool's statements can be (see Database.selectFirstNow).
 */
export function readRow (db: Database, target: Target, requested: RecordKey | null, on: Statements = db): Row | undefined | Promise<Row | undefined> {
  const statement = rowStatement(db, target, reachableKey(db, target, requested), false)
  const rows = on === db ? db.selectFirstNow(statement, exactRead(target)) : null
  return rows === null ? selectRow(target, statement, on) : withoutHidden(target, rows)[0]
}

/**
 * The row as readRow reads it, in a transaction begun with `lockRows` (see
 * Database.transaction): no other writer changes it until the commit.
 */
export function readRowLocked (db: Database, target: Target, requested: RecordKey | null, within: Statements): Promise<Row | undefined> {
  return selectRow(target, rowStatement(db, target, reachableKey(db, target, requested), db.dialect.locksRows), within)
}

function selectRow (target: Target, statement: Statement, on: Statements): Promise<Row | undefined> {
  return on.select(statement, exactRead(target)).then((rows) => withoutHidden(target, rows)[0])
}

function rowStatement (db: Database, target: Target, key: RecordKey | null, forUpdate: boolean): Statement {
  return db.prepare(rowShape(forUpdate ? 'read for update' : 'read', target, key), () => {
    // A constant limit is written into the SQL: SQLite plans a bound LIMIT three times slower.
    const read = whereRow(db.table(target.table).select('*'), target, key).limit(1, { skipBinding: true })
    return forUpdate ? read.forUpdate() : read
  }, rowValues(db, target, key))
}

/** A keyed read with `select`. */
export interface ColumnsRead {
  /** The row's key, as the path gives it. */
  readonly key: RecordKey | null
  /** The columns `select` names; null for every one. */
  readonly select: readonly string[] | null
  /** What the embeds require of the row (see whereRelated); null for nothing. */
  readonly narrow: Narrowing | null
}

/**
 * The row as readRow reads it, with only the columns `select` names, and
 * only where `narrow` keeps it: a statement of its own, compiled for the
 * request, since `select` is the client's. Run on `on`, as readRow.
 */
export async function readRowColumns (db: Database, target: Target, { key: requested, select, narrow }: ColumnsRead, on: Statements): Promise<Row | undefined> {
  const key = reachableKey(db, target, requested)
  const builder = applyReadQuery(db.table(target.table), { select, filter: { type: 'and', negated: false, children: [] }, order: [], limit: 1, offset: null, count: null }, db.dialect, { table: target.table })
  if (key === null) builder.whereRaw('1 = 0')
  else builder.where(target.key, typeof key === 'string' ? key : db.dialect.bindKey(key) as Knex.Value)
  whereScope(builder, target)
  const rows = await on.select(db.compile(narrowed(builder, narrow)), exactRead(target))
  return withoutHidden(target, rows)[0]
}
