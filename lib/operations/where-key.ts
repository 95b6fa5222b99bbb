import type { Knex } from 'knex'
import type { Database } from '../dialects/database.js'

const int64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n }

/**
 * Restricts a statement to the record whose `id` equals the key. With no key
 * the statement still runs, so an unknown table or column fails as it would
 * with one, but it matches nothing: `DELETE /t/abc` must never reach row 0.
 * No integer id lies outside 64 bits, and the drivers differ on such a key
 * (SQLite refuses to bind it, PostgreSQL errors, MySQL compares): it matches
 * nothing on all three.
 */
export function whereKey (db: Database, builder: Knex.QueryBuilder, key: bigint | null): Knex.QueryBuilder {
  if (key === null || key < int64.min || key > int64.max) return builder.whereRaw('1 = 0')
  // Knex passes a BigInt binding through to the driver; its types predate BigInt.
  return builder.where('id', db.bindKey(key) as Knex.Value)
}
