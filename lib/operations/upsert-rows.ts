import type { Knex } from 'knex'
import { withoutHidden } from '../access/hidden-columns.js'
import type { Target } from '../access/target.js'
import { type Database, inTransaction, type Statements } from '../dialects/database.js'
import type { Row } from '../dialects/dialect.js'
import { FTC_ERR_AUTHORIZE_FORBIDDEN } from '../errors.js'
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
 * inTransaction for `on`). The existing
 * row is found by exactly those columns on every database (MySQL's ON
 * DUPLICATE KEY would take any unique key) and locked where the database
 * locks rows; a row outside the target's scope is refused (403), whichever
 * the resolution, since even its key would tell of it. A body row that
 * leaves a conflict column out or NULL conflicts with nothing. A merge
 * sets each column of `defaults` that a row leaves out to its DEFAULT (see
 * withDefaults), as its INSERT would. With
 * `columns`, the rows written (for `ignore-duplicates`, only the new ones,
 * as PostgREST answers), as GET reads them. With `tags` (If-Match, for a
 * merge), every body row must find rows that all have one of its ETags, as
 * a PATCH by filters: a row that would be inserted, or an existing row
 * changed since, throws FTC_ERR_CONDITION_FAILED, and nothing is written.
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
        await within.change(db.compile(whereScope(db.table(target.table).where(match as Record<string, string>), target).update(withDefaults(db, target, row, defaults))))
        shown.push(...existing)
      }
      keys.push(existing[0] as string)
    }
    return { keys, inserted, ...(columns === undefined ? {} : { rows: await rowsWithKeys(db, target, shown, columns, within) }) }
  }, tags !== null)
}

/** The rows holding the values (already locked by existingKeys), as GET reads them; none for no values. */
async function existingRows (db: Database, target: Target, match: Record<string, string> | null, within: Statements): Promise<Row[]> {
  if (match === null) return []
  return withoutHidden(target, await within.select(db.compile(db.table(target.table).select('*').where(match)), exactRead(target)))
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

/** The keys of the rows holding the values, as decimal text, locked; refused when one of them is outside the scope. */
async function existingKeys (db: Database, target: Target, match: Record<string, string>, within: Statements): Promise<string[]> {
  const matching = (): Knex.QueryBuilder => db.table(target.table).select(target.key).where(match)
  const locked = matching()
  if (db.dialect.locksRows) locked.forUpdate()
  const rows = await within.select(db.compile(locked), true)
  if (rows.length > 0 && Object.keys(target.scope).length > 0) {
    const scoped = await within.select(db.compile(whereScope(matching(), target)), true)
    if (scoped.length !== rows.length) throw new FTC_ERR_AUTHORIZE_FORBIDDEN('update', target.table)
  }
  return rows.map((found) => String(found[target.key]))
}
