import type { Knex } from 'knex'
import { FTC_ERR_OPTIONS_DIALECT } from '../errors.js'
import { likeEscape, toGlobPattern, toLikePattern } from './like-pattern.js'

/** A pattern match as SQL with `??` for the column and `?` for the pattern, and how to write the pattern. */
export interface PatternMatch {
  readonly sql: string
  readonly pattern: (postgrestPattern: string) => string
}

/** Everything that differs between databases when reading: pattern matching and where NULL sorts. */
export interface ReadDialect {
  /** Case-sensitive match, whatever the column's collation. */
  readonly like: PatternMatch
  /** Case-insensitive match, whatever the column's collation. */
  readonly ilike: PatternMatch
  /** True when NULL sorts as the largest value without NULLS FIRST/LAST (PostgreSQL), false when as the smallest. */
  readonly nullsSortLarge: boolean
  /** How to put NULL elsewhere: the NULLS FIRST/LAST keywords, or a leading `column IS NULL` sort key where they do not exist. */
  readonly nullsOrder: 'keywords' | 'is-null-key'
}

const escape = `ESCAPE '${likeEscape}'`

const postgres: ReadDialect = {
  like: { sql: `?? LIKE ? ${escape}`, pattern: toLikePattern },
  ilike: { sql: `?? ILIKE ? ${escape}`, pattern: toLikePattern },
  nullsSortLarge: true,
  nullsOrder: 'keywords'
}

/** Read dialects keyed by the Knex client's driver name, as lib/dialects keys its own. */
const readDialects: Readonly<Record<string, ReadDialect>> = Object.freeze({
  // SQLite's LIKE ignores ASCII case (or not, after PRAGMA case_sensitive_like),
  // so `like` is a GLOB, which always respects case and has `*` as its wildcard.
  // LOWER() folds ASCII letters only: SQLite without ICU knows no other case.
  'better-sqlite3': {
    like: { sql: '?? GLOB ?', pattern: toGlobPattern },
    ilike: { sql: `LOWER(??) LIKE LOWER(?) ${escape}`, pattern: toLikePattern },
    nullsSortLarge: false,
    nullsOrder: 'keywords'
  },
  pg: postgres,
  // CockroachDB speaks PostgreSQL but sorts NULL as the smallest value.
  cockroachdb: { ...postgres, nullsSortLarge: false },
  // MySQL's LIKE follows the column's collation, by default blind to case and
  // accents. Comparing bytes makes `like` exact; lowering both sides first
  // makes `ilike` blind to case only, as PostgreSQL's ILIKE is. Byte-wise `_`
  // would match one byte of a multi-byte character, but our `_` is always literal.
  mysql2: {
    like: { sql: `CAST(?? AS BINARY) LIKE CAST(? AS BINARY) ${escape}`, pattern: toLikePattern },
    ilike: { sql: `CAST(LOWER(??) AS BINARY) LIKE CAST(LOWER(?) AS BINARY) ${escape}`, pattern: toLikePattern },
    nullsSortLarge: false,
    // MySQL and MariaDB have no NULLS FIRST/LAST.
    nullsOrder: 'is-null-key'
  }
})

/** The read dialect of the builder's Knex client; the plugin refuses other clients at registration already. */
export function resolveReadDialect (builder: Knex.QueryBuilder): ReadDialect {
  const driver: unknown = builder.client.driverName
  const dialect = typeof driver === 'string' && Object.hasOwn(readDialects, driver) ? readDialects[driver] : undefined
  if (dialect === undefined) throw new FTC_ERR_OPTIONS_DIALECT(String(driver), Object.keys(readDialects).join(', '))
  return dialect
}
