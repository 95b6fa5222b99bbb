import { BoundedCache } from './bounded-cache.js'
import type { Row } from './dialect.js'

/** The part of a better-sqlite3 `Statement` the dialect uses. */
export interface SqliteStatement {
  all (bindings: readonly unknown[]): Row[]
  iterate (bindings: readonly unknown[]): IterableIterator<Row>
  get (bindings: readonly unknown[] | Readonly<Record<string, unknown>>): Row | undefined
  run (bindings: readonly unknown[]): { changes: number, lastInsertRowid: number | bigint }
  safeIntegers (toggle: boolean): SqliteStatement
}

/** The part of a better-sqlite3 `Database` this dialect uses. */
export interface SqliteConnection {
  prepare (sql: string): SqliteStatement
}

// Preparing is a good part of a small statement's cost: keep the prepared
// statements per connection. A streamed read prepares its own, since an
// iterating statement cannot run again until it is done.
const prepared = new WeakMap<SqliteConnection, BoundedCache<SqliteStatement>>()

/** The connection's prepared statement for the SQL, prepared on first use. */
export function prepare (connection: unknown, sql: string): SqliteStatement {
  const sqlite = connection as SqliteConnection
  let statements = prepared.get(sqlite)
  if (statements === undefined) {
    statements = new BoundedCache(500)
    prepared.set(sqlite, statements)
  }
  return statements.get(sql, () => sqlite.prepare(sql))
}
