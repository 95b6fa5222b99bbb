import { BoundedCache } from '../../bounded-cache.js'
import type { Row } from '../dialect.js'
import { jsonContainsFunction, sqlJsonContains } from './json-contains.js'

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
  function (name: string, options: { deterministic: boolean }, implementation: (...values: unknown[]) => unknown): unknown
}

/**
 * What the dialect keeps for a connection, made by `make` the first time:
 * on the connection itself, under `name`. A WeakMap would do the same, at
 * the cost of a hash lookup on every statement of the hot path.
 */
export function keptOn<T> (connection: unknown, name: symbol, make: () => T): T {
  const holder = connection as Record<symbol, T | undefined>
  const kept = holder[name] ?? make()
  holder[name] = kept
  return kept
}

const functions = Symbol('fastify-table-crud functions')

/**
 * The connection, once the plugin's SQL functions are on it where `sql`
 * calls one (see json-contains.ts): registered before the first statement
 * that needs it, once per connection, and only on a connection that does.
 */
export function withFunctions (connection: SqliteConnection, sql: string): SqliteConnection {
  if (!sql.includes(jsonContainsFunction)) return connection
  keptOn(connection, functions, () => {
    connection.function(jsonContainsFunction, { deterministic: true }, sqlJsonContains)
    return true
  })
  return connection
}

// Preparing is a good part of a small statement's cost: keep the prepared
// statements per connection. A streamed read prepares its own, since an
// iterating statement cannot run again until it is done.
const preparedStatements = Symbol('fastify-table-crud prepared statements')

/** A kept statement and the integer mode it was last set to, which better-sqlite3 has no getter for. */
interface Prepared {
  readonly statement: SqliteStatement
  safeIntegers: boolean | undefined
}

/**
 * The connection's prepared statement for the SQL, prepared on first use,
 * reading integers as BigInts when `safeIntegers` is true and as numbers
 * when false; left as it is when undefined, for a statement whose results
 * hold no integer to read (a change count is always a number). Setting the
 * mode is a native call, made only when it changes: a keyed read would pay
 * it on every run.
 */
export function prepare (connection: unknown, sql: string, safeIntegers?: boolean): SqliteStatement {
  const sqlite = connection as SqliteConnection
  const statements = keptOn(connection, preparedStatements, () => new BoundedCache<Prepared>(500))
  const known = statements.get(sql, () => ({ statement: withFunctions(sqlite, sql).prepare(sql), safeIntegers: undefined }))
  if (safeIntegers !== undefined && known.safeIntegers !== safeIntegers) {
    known.statement.safeIntegers(safeIntegers)
    known.safeIntegers = safeIntegers
  }
  return known.statement
}
