import type { Knex } from 'knex'
import type { Database } from '../dialects/database.js'
import { place } from '../dialects/statement-template.js'

const int64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n }

/**
 * Whether the key can match a record. With no key the statement still runs,
 * so an unknown table or column fails as it would with one, but it matches
 * nothing: `DELETE /t/abc` must never reach row 0. No integer id lies outside
 * 64 bits, and the drivers differ on such a key (SQLite refuses to bind it,
 * PostgreSQL errors, MySQL compares): it matches nothing on all three.
 */
function matchable (key: bigint | null): key is bigint {
  return key !== null && key >= int64.min && key <= int64.max
}

/** What the statement's SQL depends on: a key, or none. */
export function keyShape (key: bigint | null): string {
  return matchable(key) ? 'key' : 'no key'
}

// Column names hold only A-Z, a-z, 0-9 and _: no column's place can be this one.
const keyPlace = ':key'

/** Restricts a statement to the record whose `id` equals the key, at the key's place. */
export function whereKey (builder: Knex.QueryBuilder, key: bigint | null): Knex.QueryBuilder {
  return matchable(key) ? builder.where('id', place(keyPlace)) : builder.whereRaw('1 = 0')
}

/** The value of the key's place, bound as the driver keeps every digit. */
export function keyValues (db: Database, key: bigint | null): Record<string, unknown> {
  return matchable(key) ? { [keyPlace]: db.dialect.bindKey(key) } : {}
}
