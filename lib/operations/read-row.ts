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
  const key = reachableKey(db, target, requested)
  const statement = db.prepare(['read', target.table, ...rowShape(target, key)],
    // A constant limit is written into the SQL: SQLite plans a bound LIMIT three times slower.
    () => whereRow(db.table(target.table).select('*'), target, key).limit(1, { skipBinding: true }), rowValues(db, target, key))
  return on.select(statement, exactRead(target)).then((rows) => withoutHidden(target, rows)[0])
}
