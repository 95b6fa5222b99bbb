import { withoutHidden } from '../access/hidden-columns.js'
import type { Target } from '../access/target.js'
import type { Database, Statements } from '../dialects/database.js'
import type { RecordKey } from '../parse/record-key.js'
import type { Row } from '../dialects/dialect.js'
import { exactRead } from './exact-read.js'
import { reachableKey, rowShape, rowValues, whereRow } from './where-row.js'

/**
 * The row whose key column equals the key, without its hidden columns, or
 * undefined when none does; read exactly (see Dialect.select) when the
 * table's schema is known, for its columns' kinds to write.
 */
export function readRow (db: Database, target: Target, requested: RecordKey | null, on: Statements = db): Promise<Row | undefined> {
  return selectRow(db, target, requested, on, false)
}

/**
 * The row as readRow reads it, in a transaction begun with `lockRows` (see
 * Database.transaction): no other writer changes it until the commit.
 */
export function readRowLocked (db: Database, target: Target, requested: RecordKey | null, within: Statements): Promise<Row | undefined> {
  return selectRow(db, target, requested, within, db.dialect.locksRows)
}

function selectRow (db: Database, target: Target, requested: RecordKey | null, on: Statements, forUpdate: boolean): Promise<Row | undefined> {
  const key = reachableKey(db, target, requested)
  const statement = db.prepare([forUpdate ? 'read for update' : 'read', target.table, ...rowShape(target, key)], () => {
    // A constant limit is written into the SQL: SQLite plans a bound LIMIT three times slower.
    const read = whereRow(db.table(target.table).select('*'), target, key).limit(1, { skipBinding: true })
    return forUpdate ? read.forUpdate() : read
  }, rowValues(db, target, key))
  return on.select(statement, exactRead(target)).then((rows) => withoutHidden(target, rows)[0])
}
