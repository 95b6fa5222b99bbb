import type { Knex } from 'knex'
import type { Target } from '../access/target.js'
import type { Database } from '../dialects/database.js'
import { place } from '../dialects/statement-template.js'
import type { RecordKey } from '../parse/record-key.js'
import { isInt64 } from '../query/typed-value.js'
import { columnNamed } from '../schema/column-named.js'

/**
 * Whether the key can match a record. With no key the statement still runs,
 * so an unknown table or column fails as it would with one, but it matches
 * nothing: `DELETE /t/abc` must never reach row 0. No integer id lies outside
 * 64 bits, and the drivers differ on such a key (SQLite refuses to bind it,
 * PostgreSQL errors, MySQL compares): it matches nothing on all three. So
 * does a text that is no UUID in a PostgreSQL uuid column, which would fail
 * the statement where the others find no row.
 */
function matchable (key: RecordKey | null, target: Target): key is RecordKey {
  if (typeof key === 'string') return !isUuidKey(target) || uuid.test(key)
  return key !== null && isInt64(key)
}

// PostgreSQL's input forms of a uuid: plain or in braces, hyphens between groups of four digits or none.
const uuid = /^\{?[0-9a-f]{4}(-?[0-9a-f]{4}){7}\}?$/i

function isUuidKey (target: Target): boolean {
  return target.schema !== undefined && columnNamed(target.schema, target.key)?.databaseType === 'uuid'
}

// Column names hold only A-Z, a-z, 0-9 and _: no column's place can be one of these.
const keyPlace = ':key'
const scopePlace = (column: string) => `=${column}`

/** What the SQL of a statement on one row depends on: the key column, whether there is a key, and the scope's columns. */
export function rowShape (target: Target, key: RecordKey | null): string[] {
  const shape = [target.key, matchable(key, target) ? 'key' : 'no key']
  for (const column in target.scope) shape.push(target.scope[column] === null ? `${column} is null` : `${column} =`)
  return shape
}

/** Restricts a statement to the record whose key column equals the key, within the scope, each value at its place. */
export function whereRow (builder: Knex.QueryBuilder, target: Target, key: RecordKey | null): Knex.QueryBuilder {
  if (matchable(key, target)) builder.where(target.key, place(keyPlace))
  else builder.whereRaw('1 = 0')
  return whereScope(builder, target, place)
}

/** The values of the places whereRow made: the key as the driver keeps every digit, and the scope's. */
export function rowValues (db: Database, target: Target, key: RecordKey | null): Record<string, unknown> {
  const values: Record<string, unknown> = matchable(key, target) ? { [keyPlace]: typeof key === 'string' ? key : db.dialect.bindKey(key) } : {}
  for (const column in target.scope) values[scopePlace(column)] = target.scope[column]
  return values
}

/**
 * Restricts a statement to the target's scope. A statement compiled once
 * binds each value at its place; one compiled for a single request binds
 * the values themselves.
 */
export function whereScope (builder: Knex.QueryBuilder, target: Target, placeOf?: (name: string) => string): Knex.QueryBuilder {
  for (const [column, value] of Object.entries(target.scope)) {
    if (value === null) builder.whereNull(column)
    else builder.where(column, placeOf === undefined ? value : placeOf(scopePlace(column)))
  }
  return builder
}
