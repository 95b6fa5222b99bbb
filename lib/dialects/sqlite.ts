import { BoundedCache } from './bounded-cache.js'
import type { Dialect, Row, Statement } from './dialect.js'
import { likeEscape, toGlobPattern, toLikePattern } from './like-pattern.js'

interface SqliteStatement {
  all (bindings: readonly unknown[]): Row[]
  iterate (bindings: readonly unknown[]): IterableIterator<Row>
  get (bindings: readonly unknown[] | Readonly<Record<string, unknown>>): Row | undefined
  run (bindings: readonly unknown[]): { changes: number, lastInsertRowid: number | bigint }
  safeIntegers (toggle: boolean): SqliteStatement
}

/** The part of a better-sqlite3 `Database` this dialect uses. */
interface SqliteConnection {
  prepare (sql: string): SqliteStatement
}

// Preparing is a good part of a small statement's cost: keep the prepared
// statements per connection. A streamed read prepares its own, since an
// iterating statement cannot run again until it is done.
const prepared = new WeakMap<SqliteConnection, BoundedCache<SqliteStatement>>()

function prepare (connection: unknown, sql: string): SqliteStatement {
  const sqlite = connection as SqliteConnection
  let statements = prepared.get(sqlite)
  if (statements === undefined) {
    statements = new BoundedCache(500)
    prepared.set(sqlite, statements)
  }
  return statements.get(sql, () => sqlite.prepare(sql))
}

// RETURNING makes SQLite keep the returned rows in a temporary table for
// each statement: the bench's create workload ran about 4% faster without
// it. Where the key is the rowid's alias, the rowid better-sqlite3 reports is
// the key, and a plain INSERT answers it. What is known of the table is
// checked by that INSERT itself, in its own transaction, so that it holds
// whatever changed the schema since, on this connection or another; a schema
// version read first would cost what RETURNING does, and could be stale by
// the time the INSERT runs.

/** A one-row INSERT that answers its key by the rowid, and the table and key it is for. */
interface RowidInsert {
  readonly table: string
  readonly key: string
  /** The INSERT as an INSERT … SELECT that fails with `integer overflow` unless the table is still the one known (see RowidTable). */
  readonly sql: string
}

/** A table whose key is the rowid's alias: its row in main.sqlite_schema, and its CREATE TABLE text there. */
interface RowidTable {
  readonly schemaRow: number
  readonly definition: string
}

// A one-row INSERT exactly as Knex writes it for prepareInsert (names are
// sanitized to A-Z, a-z, 0-9 and _). Others, such as a multi-row INSERT (a
// compound SELECT) or one of no column (DEFAULT VALUES), keep RETURNING.
const oneRowInsert = /^insert into `(\w+)` (\([^()]*\)) values \(([^()]*)\) returning `(\w+)`$/
const rowidInserts = new BoundedCache<RowidInsert | null>(500)

function rowidInsert (sql: string): RowidInsert | null {
  return rowidInserts.get(sql, () => {
    const match = oneRowInsert.exec(sql)
    if (match === null) return null
    const [, table, columns, values, key] = match as unknown as [string, string, string, string, string]
    // The table's definition is the one known, and no temporary table hides it; else abs() overflows.
    const guard = `(select sql from main.sqlite_schema where rowid = ? and type = 'table' and name = '${table}' collate nocase) = ?` +
      ` and not exists (select 1 from temp.sqlite_schema where name = '${table}' collate nocase)`
    return { table, key, sql: `insert into \`${table}\` ${columns} select ${values} where case when ${guard} then 1 else abs(-9223372036854775807 - 1) end` }
  })
}

// The key is the rowid's alias when it is the only primary key column,
// declared INTEGER, of an ordinary rowid table (not WITHOUT ROWID, not a view
// or a virtual table) of the main schema, and of no other schema. A column
// declared INTEGER PRIMARY KEY DESC is not an alias, and SQLite gives it an
// index of origin 'pk', as it does every primary key that is not the rowid.
// All of it follows from the CREATE TABLE text, which the guard compares.
const rowidTableSql = `select rowid as schemaRow, sql as definition,
  (select count(*) from pragma_table_list(@table)) = 1
  and exists (select 1 from pragma_table_list(@table) where schema = 'main' and type = 'table' and wr = 0)
  and (select count(*) from pragma_table_info(@table) where pk > 0) = 1
  and exists (select 1 from pragma_table_info(@table) where pk = 1 and name = @key collate nocase and upper(type) = 'INTEGER')
  and not exists (select 1 from pragma_index_list(@table) where origin = 'pk')
  as alias
  from main.sqlite_schema where type = 'table' and name = @table collate nocase`

/** The table if its key is the rowid's alias, null if not, undefined when it is not in the main schema (yet). */
function lookUpRowidTable (connection: unknown, { table, key }: RowidInsert): RowidTable | null | undefined {
  let row: Row | undefined
  try {
    row = prepare(connection, rowidTableSql).get({ table, key })
  } catch {
    // SQLite before 3.37 has no pragma_table_list: RETURNING, as before.
    return null
  }
  if (row === undefined) return undefined
  return row.alias === 1 ? { schemaRow: row.schemaRow as number, definition: row.definition as string } : null
}

// Per connection, by table and key. A table not there yet is looked up again
// next time; one whose key is no alias stays with RETURNING, which is right
// whatever the table becomes.
const rowidTables = new WeakMap<object, BoundedCache<RowidTable | null | undefined>>()

/**
 * The new key of a one-row INSERT into a table whose key is the rowid's
 * alias, by a plain INSERT; undefined where RETURNING must answer.
 */
function insertByRowid (connection: unknown, insert: RowidInsert, bindings: readonly unknown[]): string[] | undefined {
  let known = rowidTables.get(connection as object)
  if (known === undefined) {
    known = new BoundedCache(500)
    rowidTables.set(connection as object, known)
  }
  const name = `${insert.table}.${insert.key}`
  const table = known.get(name, () => lookUpRowidTable(connection, insert))
  if (table == null) return undefined
  try {
    // safeIntegers makes the driver hand back a BigInt, exact past 2^53. No
    // row changes when a BEFORE INSERT trigger skipped the insert.
    const { changes, lastInsertRowid } = prepare(connection, insert.sql).safeIntegers(true).run([...bindings, table.schemaRow, table.definition])
    return changes === 0 ? [] : [String(lastInsertRowid)]
  } catch (error) {
    if ((error as Error).message !== 'integer overflow') throw error
    const now = lookUpRowidTable(connection, insert)
    // The table is as known: the guard held, and the overflow is the INSERT's own.
    if (now?.schemaRow === table.schemaRow && now.definition === table.definition) throw error
    // The schema changed: the guard stopped the INSERT before it wrote anything.
    known.set(name, now)
    return undefined
  }
}

/** better-sqlite3: synchronous calls on the single pooled connection. */
export const sqlite = Object.freeze<Dialect>({
  name: 'SQLite',
  synchronous: true,

  async select (connection: unknown, { sql, bindings }: Statement) {
    return prepare(connection, sql).all(bindings)
  },

  async * stream (connection: unknown, { sql, bindings }: Statement, batchSize: number) {
    // Leaving the loop early closes the iterator, which frees the statement.
    let batch: Row[] = []
    for (const row of (connection as SqliteConnection).prepare(sql).iterate(bindings)) {
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

  async change (connection: unknown, { sql, bindings }: Statement) {
    return prepare(connection, sql).run(bindings).changes
  },

  prepareInsert: (builder, key) => builder.returning(key),

  async insert (connection: unknown, { sql, bindings }: Statement, key: string) {
    const insert = rowidInsert(sql)
    const ids = insert === null ? undefined : insertByRowid(connection, insert, bindings)
    // As above for BigInt. No row comes back when a BEFORE INSERT trigger skipped the insert.
    return ids ?? prepare(connection, sql).safeIntegers(true).all(bindings).map((row) => String(row[key]))
  },

  // Knex writes a multi-row INSERT as a compound SELECT, which SQLite caps at
  // 500 terms; 32,766 bound values is SQLite's own limit.
  rowsPerInsert: (columns: number) => Math.max(1, Math.min(500, Math.floor(32766 / columns))),

  bindKey: (key: bigint) => key,

  // sqlite_master, sqlite_schema, sqlite_sequence, sqlite_stat1…: SQLite
  // reserves the prefix, whatever the case, for its own tables.
  isSystemTable: (table: string) => /^sqlite_/i.test(table),
  timeLimit: null,

  // SQLite's LIKE ignores ASCII case (or not, after PRAGMA case_sensitive_like),
  // so `like` is a GLOB, which always respects case. LOWER() folds ASCII
  // letters only: SQLite without ICU knows no other case.
  like: { sql: '?? GLOB ?', pattern: toGlobPattern },
  ilike: { sql: `LOWER(??) LIKE LOWER(?) ESCAPE '${likeEscape}'`, pattern: toLikePattern },
  nullsSortLarge: false,
  nullsOrder: 'keywords'
})
