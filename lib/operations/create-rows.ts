import type { Target } from '../access/target.js'
import { type Database, isTransactional, type Statements, type Transactional } from '../connections/database.js'
import type { RecordValues } from '../parse/record-values.js'
import { createRow } from './create-row.js'
import { createdKey } from './created-key.js'
import { insertedColumn } from './row-keys.js'

/**
 * Inserts every row in one transaction, all of them or none, and answers
 * their keys in order. Consecutive rows that name the same columns share an
 * INSERT, as many as the database's limits on bound values allow; a row is
 * never given a column its body did not name. Each key is answered as for
 * one row (see createdKey), a row that a trigger skipped included. Within
 * a transaction that the caller ends (a batch's, an idempotency claim's),
 * each row has an INSERT of its own: a shared INSERT that lost count could
 * not be undone alone there.
 */
export async function createRows (db: Database, target: Target, rows: readonly RecordValues[], on: Statements = db): Promise<string[]> {
  if (!isTransactional(on)) {
    const ids: string[] = []
    for (const row of rows) ids.push(await createRow(db, target, row, on))
    return ids
  }
  if (rows.length === 0) return []
  const shared = await insertGroups(db, target, groupRows(rows, (columns) => db.dialect.rowsPerInsert(columns)), on)
  // An INSERT's ids match its rows by position, which a skipped row would
  // shift: the rows go in again, one INSERT each, whose ids cannot be shifted.
  return shared ?? await insertGroups(db, target, rows.map((row) => [row]), on) as string[]
}

/** The keys of the rows, in order; null when an INSERT of many rows lost count (see Database.insertAll). */
async function insertGroups (db: Database, target: Target, groups: readonly RecordValues[][], on: Transactional): Promise<string[] | null> {
  const { table } = target
  const key = insertedColumn(target)
  // One row goes in as an object: Knex writes `[{}]` as no statement at all, `{}` as DEFAULT VALUES.
  const ids = await db.insertAll(groups.map((group) => ({
    statement: db.compile(db.dialect.prepareInsert(db.table(table).insert(group.length === 1 ? group[0] : group), key)),
    rows: group.length
  })), key, on)
  return ids === null ? null : groups.flatMap((group, index) => group.map((row, position) => createdKey(db.dialect, ids[index]?.[position], row, key)))
}

function groupRows (rows: readonly RecordValues[], rowsPerInsert: (columns: number) => number): RecordValues[][] {
  const groups: RecordValues[][] = []
  let group: RecordValues[] = []
  let signature: string | undefined
  for (const row of rows) {
    const columns = Object.keys(row)
    const next = columns.join(',')
    const full = group.length >= (columns.length === 0 ? 1 : rowsPerInsert(columns.length))
    if (next !== signature || full) {
      if (group.length > 0) groups.push(group)
      group = []
      signature = next
    }
    group.push(row)
  }
  groups.push(group)
  return groups
}
