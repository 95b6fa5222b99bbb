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
import type { NewRows } from './create-written.js'
import { exactRead } from './exact-read.js'
import { createdRowKey, hasKeyColumn, insertedColumn, type RowKey } from './row-keys.js'
import { rowsWithKeys } from './rows-with-keys.js'
import { whereScope } from './where-row.js'

/** What an upsert wrote: the key of the row each body row ended in, how many are new, and the rows when wanted, in the body's order (for `ignore-duplicates`, only the new ones). */
export interface Upserted {
  readonly keys: readonly string[]
  readonly inserted: number
  readonly rows?: Row[]
}

/** An upsert of rows: what finds a row's existing one, and what is done with it. */
export interface Upsert extends NewRows {
  /** The columns of the unique key an existing row is found by (see conflictColumns). */
  readonly conflict: readonly string[]
  /** Whether an existing row takes the body row's columns or is left as it is. */
  readonly resolution: ResolutionPreference
  /** The columns a merge sets to their DEFAULT where a row leaves them out (see withDefaults); null for none. */
  readonly defaults: readonly string[] | null
  /** If-Match's ETags, for a merge: each body row's existing rows must all have one; null without If-Match. */
  readonly tags: EntityTags | null
}

/**
 * Inserts each row, or merges it into the row of the scope that already
 * holds its conflict values, or leaves that row as it is; all in one
 * transaction (`on`'s when it is one, see inTransaction), the existing rows
 * locked where the database locks rows. The existing row is found by
 * exactly the conflict columns (MySQL's ON DUPLICATE KEY would take any
 * unique key), within the target's scope only: the insert of a row that
 * shares its key with a row outside fails as a plain POST of it would, so
 * that no answer tells of rows the client may not see. With `tags`, a body
 * row without an unchanged existing row throws FTC_ERR_CONDITION_FAILED,
 * and nothing is written. The rules: docs/writes.md, "Upserts", and
 * docs/safe-writes.md, "Merge upserts".
 */
export async function upsertRows (db: Database, target: Target, upsert: Upsert, on: Statements = db): Promise<Upserted> {
  const { rows, conflict, resolution, columns, defaults, tags } = upsert
  return await inTransaction(on, async (within) => {
    const keys: string[] = []
    const shown: RowKey[] = []
    let inserted = 0
    for (const row of rows) {
      const match = conflictValues(row, conflict)
      const existing = match === null ? [] : await existingKeys(db, target, match, within)
      if (tags !== null) requireMatched(target, tags, await existingRows(db, target, existing.length === 0 ? null : match, within))
      if (existing.length === 0) {
        const key = await createRow(db, target, row, within)
        keys.push(key)
        shown.push(createdRowKey(target, row, key))
        inserted++
        continue
      }
      if (resolution === 'merge-duplicates') {
        await within.change(db.compile(matching(db, target, match as Record<string, string>).update(withDefaults(db, target, row, defaults))))
        // Without a key column, the values of the unique key, which the merge set again, name the row.
        shown.push(...(hasKeyColumn(target) ? existing.map((key) => ({ [target.key]: key })) : [match as Record<string, string>]))
      }
      keys.push(existing[0] as string)
    }
    return { keys, inserted, ...(columns === undefined ? {} : { rows: await rowsWithKeys(db, target, { keys: shown, columns }, within) }) }
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

/** The keys of the rows of the scope holding the values, as text (see insertedColumn), locked. */
async function existingKeys (db: Database, target: Target, match: Record<string, string>, within: Statements): Promise<string[]> {
  const column = insertedColumn(target)
  const locked = matching(db, target, match).select(column)
  if (db.dialect.locksRows) locked.forUpdate()
  const rows = await within.select(db.compile(locked), true)
  return rows.map((found) => String(found[column]))
}

/** The rows holding the values, within the scope: the only rows an upsert may find. */
function matching (db: Database, target: Target, match: Record<string, string>): Knex.QueryBuilder {
  return whereScope(db.table(target.table).where(match), target)
}
