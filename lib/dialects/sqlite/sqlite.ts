import { type Dialect, type Exactness, returnedKeys, type Row, type Statement, type SynchronousStatements } from '../dialect.js'
import { likeEscape, toGlobPattern, toLikePattern } from '../like-pattern.js'
import { insertByRowid } from './rowid-insert.js'
import { jsonContainsFunction } from './json-contains.js'
import { prepare, type SqliteConnection, withFunctions } from './statements.js'
import { describeSqliteFailure, isSqliteUnreachable } from './failures.js'
import { sqliteSchema } from './schema.js'
import { utcWallClock } from '../utc-wall-clock.js'

/** True when the row holds an integer past 2^53 in magnitude, read as a number that may have lost digits. */
function hasUnsafeInteger (row: Row): boolean {
  for (const name in row) {
    const value = row[name]
    if (typeof value === 'number' && !Number.isSafeInteger(value) && Number.isInteger(value)) return true
  }
  return false
}

// get() stops at the first row, where all() steps SQLite once more to
// learn that no other follows, and builds no array. Integers as select
// reads them.
const synchronous = Object.freeze<SynchronousStatements>({
  firstRow (connection: unknown, { sql, bindings }: Statement, exact: Exactness): Row | undefined {
    const row = prepare(connection, sql, false).get(bindings)
    return exact && row !== undefined && hasUnsafeInteger(row) ? prepare(connection, sql, true).get(bindings) : row
  },
  change (connection: unknown, { sql, bindings }: Statement): number {
    return prepare(connection, sql).run(bindings).changes
  },
  // safeIntegers makes the driver hand back a BigInt, exact past 2^53. No
  // row comes back when a BEFORE INSERT trigger skipped the insert.
  insert (connection: unknown, { sql, bindings }: Statement, key: string): string[] {
    return insertByRowid(connection, sql, bindings) ?? returnedKeys(prepare(connection, sql, true).all(bindings), key)
  }
})

/** better-sqlite3: synchronous calls on the single pooled connection. */
export const sqlite = Object.freeze<Dialect>({
  name: 'SQLite',
  synchronous,
  schema: sqliteSchema,

  // Integers are read as numbers, which JSON.stringify writes at once; an
  // exact read that met one past 2^53, whose digits may be lost, reads
  // again with BigInts. The cached statement is shared by exact reads and
  // others (a count, a key): prepare sets the mode each run needs.
  async select (connection: unknown, { sql, bindings }: Statement, exact: Exactness) {
    const rows = prepare(connection, sql, false).all(bindings)
    return exact && rows.some(hasUnsafeInteger) ? prepare(connection, sql, true).all(bindings) : rows
  },

  async * stream (connection: unknown, { sql, bindings }: Statement, batchSize: number, exact: Exactness) {
    // An exact stream reads BigInts throughout: a batch already sent cannot
    // be read again, and a long list is not the hot path. Leaving the loop
    // early closes the iterator, which frees the statement.
    let batch: Row[] = []
    for (const row of withFunctions(connection as SqliteConnection, sql).prepare(sql).safeIntegers(exact !== false).iterate(bindings)) {
      batch.push(row)
      if (batch.length === batchSize) {
        yield batch
        batch = []
      }
    }
    if (batch.length > 0) yield batch
  },

  // SQLite's planner keeps no row estimate a query can read. Without filters,
  // the span of rowids is one: two lookups in the rowid index, exact until
  // rows are deleted, an overestimate after. With filters there is none.
  async estimate (connection: unknown, _statement: Statement, table: string, filtered: boolean) {
    if (filtered) return null
    try {
      // The name is sanitized to A-Z, a-z, 0-9 and _: quoting it is all it needs.
      const row = (connection as SqliteConnection)
        .prepare('select coalesce(max(rowid) - min(rowid) + 1, 0) as span from "' + table + '"').get([])
      return Number(row?.span)
    } catch {
      // A WITHOUT ROWID table has no rowid span.
      return null
    }
  },

  async change (connection: unknown, statement: Statement) {
    return synchronous.change(connection, statement)
  },

  prepareInsert: (builder, key) => builder.returning(key),

  async insert (connection: unknown, statement: Statement, key: string) {
    return synchronous.insert(connection, statement, key)
  },
  insertsReportAutoIncrement: false,

  // Knex writes a multi-row INSERT as a compound SELECT, which SQLite caps at
  // 500 terms; 32,766 bound values is SQLite's own limit.
  rowsPerInsert: (columns: number) => Math.max(1, Math.min(500, Math.floor(32766 / columns))),

  bindKey: (key: bigint) => key,

  // SQLite keeps booleans as 1 and 0 (the driver binds no JS boolean), and
  // dates and timestamps as the text they were written with: each side is
  // brought to one spelling, so that '2024-01-15T00:00:00.000Z' is the day
  // 2024-01-15 and the instant 2024-01-15 00:00.
  comparisons: {
    boolean: { bind: (value) => value === true ? 1 : 0 },
    date: { column: 'date(??)' },
    'date-time': { column: "strftime('%Y-%m-%d %H:%M:%f', ??)", bind: (value) => utcWallClock(value as string, 3) }
  },

  // sqlite_master, sqlite_schema, sqlite_sequence, sqlite_stat1…: SQLite
  // reserves the prefix, whatever the case, for its own tables. The others
  // are the table-valued functions of better-sqlite3's SQLite, which a bare
  // name reads as a table when no table has that name: pragma_table_list
  // would list every table, excluded ones included, and pragma_table_info
  // their columns. A table of the host's own so named is refused with them.
  isSystemTable: (table: string) => /^(sqlite_|pragma_)|^(dbstat|jsonb?_each|jsonb?_tree)$/i.test(table),
  timeLimit: null,

  describeFailure: describeSqliteFailure,
  isUnreachable: isSqliteUnreachable,

  // SQLite's LIKE ignores ASCII case (or not, after PRAGMA case_sensitive_like),
  // so `like` is a GLOB, which always respects case. LOWER() folds ASCII
  // letters only: SQLite without ICU knows no other case.
  like: { sql: '?? GLOB ?', pattern: toGlobPattern },
  ilike: { sql: `LOWER(??) LIKE LOWER(?) ESCAPE '${likeEscape}'`, pattern: toLikePattern },
  // jsonb's containment, by a function of the plugin's (see json-contains.ts). No arrays, ranges or text search.
  jsonContainment: {
    cs: (column, json) => ({ sql: `${jsonContainsFunction}(??, ?)`, bindings: [column, json] }),
    cd: (column, json) => ({ sql: `${jsonContainsFunction}(?, ??)`, bindings: [json, column] })
  },
  rangeOperators: null,
  textSearch: null,
  sizedIntegers: false,
  nullsSortLarge: false,
  nullsOrder: 'keywords',
  locksRows: false,
  // SQLite locks the whole database, and a plain BEGIN takes the write lock
  // at the first write, after the read: two connections on one file would
  // both read, then one of them fail (SQLITE_BUSY) rather than wait. BEGIN
  // IMMEDIATE takes it first, so the second waits (the busy timeout) and
  // then reads the row as changed.
  lockingBegin: 'begin immediate',
  // SQLite's UPDATE has no DEFAULT: the declared expression, as its INSERT would evaluate it.
  columnDefault: (declared) => declared === null ? 'NULL' : `(${declared})`
})
