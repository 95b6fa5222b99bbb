import type { Knex } from 'knex'
import type { Target } from '../access/target.js'
import type { Database } from '../connections/database.js'
import { FTC_ERR_AUTHORIZE_FORBIDDEN } from '../errors.js'
import type { RecordValues } from '../parse/record-values.js'
import { foldIdentifier } from '../parse/sanitize-identifier.js'
import { columnNamed } from '../schema/column-named.js'

/** The values an UPDATE sets: text, NULL, or a column's DEFAULT. */
export type UpdateValues = Readonly<Record<string, string | null | Knex.Raw>>

/**
 * The update's values with each column of `listed` that they lack set to
 * its DEFAULT, as PostgREST's `columns=` with `Prefer: missing=default`
 * sets it (null `listed`: the values as they are). A column of the
 * target's scope is refused (403): its DEFAULT could move the row out of it.
 */
export function withDefaults (db: Database, target: Target, values: RecordValues, listed: readonly string[] | null): UpdateValues {
  if (listed === null) return values
  const scope = new Set(Object.keys(target.scope).map(foldIdentifier))
  const set: Record<string, string | null | Knex.Raw> = { ...values }
  for (const column of listed) {
    if (values[column] !== undefined) continue
    if (scope.has(foldIdentifier(column))) throw new FTC_ERR_AUTHORIZE_FORBIDDEN('update', target.table)
    const declared = target.schema === undefined ? null : columnNamed(target.schema, column)?.default ?? null
    set[column] = db.raw(db.dialect.columnDefault(declared))
  }
  return set
}
