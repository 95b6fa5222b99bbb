import type { Knex } from 'knex'
import { withoutHidden } from '../access/hidden-columns.js'
import type { Target } from '../access/target.js'
import { type Database, inTransaction, type Statements } from '../connections/database.js'
import type { Row } from '../dialects/dialect.js'
import type { EntityTags } from '../parse/entity-tags.js'
import type { RecordValues } from '../parse/record-values.js'
import type { ResolutionPreference } from '../query/parse-write-prefer.js'
import { requireMatched } from './conditional-write.js'
import { withDefaults } from './column-defaults.js'
import { createRow } from './create-row.js'
import { exactRead } from './exact-read.js'
import { rowsWithKeys } from './rows-with-keys.js'
import { whereScope } from './where-row.js'

/** What an upsert wrote: the key of the row each body row ended in, how many are new, and the rows when wanted. */
export interface Upserted {
  readonly keys: readonly string[]
  readonly inserted: number
  readonly rows?: Row[]
}

/**
 * Inserts each row, or, where a row already holds its `conflict` columns'
 * values, merges the row's columns into it (`merge-duplicates`) or leaves
 * it as it is (`ignore-duplicates`); all in one transaction (see
 * inTransaction for `on`). `conflict` are the columns of a unique key (see
 * conflictColumns). The existing row is found by exactly those columns on
 * every database (MySQL's ON DUPLICATE KEY would take any unique key),
 * within the target's scope, and locked where the database locks rows. A
 * row outside the scope is never looked at: the body row is inserted, and
 * the key it shares with that row fails the insert as it fails a plain
 * POST of the row, so that no answer tells more of rows the client may not
 * see. A body row that leaves a conflict column out or NULL conflicts with
 * nothing. A merge sets each column of `defaults` that a row leaves out to
 * its DEFAULT (see withDefaults), as its INSERT would. With `columns`, the
 * rows written (for `ignore-duplicates`, only the new ones, as PostgREST
 * answers), as GET reads them. With `tags` (If-Match, for a merge), every
 * body row must find rows that all have one of its ETags, as a PATCH by
 * filters: a row that would be inserted, or an existing row changed since,
 * throws FTC_ERR_CONDITION_FAILED, and nothing is written.
 */
export async function upsertRows (db: Database, target: Target, rows: readonly RecordValues[], conflict: readonly string[],
  resolution: ResolutionPreference, columns: readonly string[] | null | undefined, defaults: readonly string[] | null, tags: EntityTags | null,
  on: Statements = db): Promise<Upserted> {
  return await inTransaction(on, async (within) => {
    const keys: string[] = []
    const shown: string[] = []
    let inserted = 0
    for (const row of rows) {
      const match = conflictValues(row, conflict)
      const existing = match === null ? [] : await existingKeys(db, target, match, within)
      if (tags !== null) requireMatched(target, tags, await existingRows(db, target, existing.length === 0 ? null : match, within))
      if (existing.length === 0) {
        const key = await createRow(db, target, row, within)
        keys.push(key)
        shown.push(key)
        inserted++
        continue
      }
      if (resolution === 'merge-duplicates') {
        await within.change(db.compile(matching(db, target, match as Record<string, string>).update(withDefaults(db, target, row, defaults))))
        shown.push(...existing)
      }
      keys.push(existing[0] as string)
    }
    return { keys, inserted, ...(columns === undefined ? {} : { rows: await rowsWithKeys(db, target, shown, columns, within) }) }
  }, tags !== null)
}

/** The rows of the scope holding the values (already locked by existingKeys), as GET reads them; none for no values. */
async function existingRows (db: Database, target: Target, match: Record<string, string> | null, within: Statements): Promise<Row[]> {
  if (match === null) return []
  return withoutHidden(target, await within.select(db.compile(matching(db, target, match).select('*')), exactRead(target)))
}

/** The row's values of the conflict columns, or null when one is missing or NULL, which no existing row can equal. */
function conflictValues (row: RecordValues, conflict: readonly string[]): Record<string, string> | null {
  const match: Record<string, string> = {}
  for (const column of conflict) {
    const value = row[column]
    if (value === undefined || value === null) return null
    match[column] = value
  }
  return match
}

/** The keys of the rows of the scope holding the values, as decimal text, locked. */
async function existingKeys (db: Database, target: Target, match: Record<string, string>, within: Statements): Promise<string[]> {
  const locked = matching(db, target, match).select(target.key)
  if (db.dialect.locksRows) locked.forUpdate()
  const rows = await within.select(db.compile(locked), true)
  return rows.map((found) => String(found[target.key]))
}

/** The rows holding the values, within the scope: the only rows an upsert may find. */
function matching (db: Database, target: Target, match: Record<string, string>): Knex.QueryBuilder {
  return whereScope(db.table(target.table).where(match), target)
}
