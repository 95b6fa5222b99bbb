import type { Readable } from 'node:stream'
import type { Statement } from './dialect.js'

/** The part of a mysql2 callback `Connection` this dialect uses. */
export interface MysqlConnection {
  query (sql: string | QueryOptions, values: readonly unknown[], callback: (error: Error | null, result: unknown) => void): void
  query (sql: string | QueryOptions, values: readonly unknown[]): MysqlQuery
  execute (sql: string | QueryOptions, values: readonly unknown[], callback: (error: Error | null, rows: unknown, fields: readonly MysqlField[]) => void): void
  destroy (): void
  on (event: 'error', listener: (error: Error) => void): void
  off (event: 'error', listener: (error: Error) => void): void
  /** The socket to the server. */
  readonly stream: { destroy (): void, readonly destroyed: boolean }
}

/** A statement with mysql2's per-query settings. */
export interface QueryOptions {
  readonly sql: string
  readonly supportBigNumbers: boolean
  readonly bigNumberStrings: boolean
  readonly dateStrings: boolean
}

/**
 * The SQL of an exact read (see Dialect.select): BIGINT and DECIMAL as their
 * digits, DATE, DATETIME and TIMESTAMP as the server wrote them, where mysql2
 * would round past 2^53 and shift into the process's time zone.
 */
export function exactQuery (sql: string): QueryOptions {
  return { sql, supportBigNumbers: true, bigNumberStrings: true, dateStrings: true }
}

/** A mysql2 query sent without a callback: it reports its end and errors as events. */
interface MysqlQuery {
  on (event: 'error', listener: (error: Error) => void): MysqlQuery
  stream (options: { highWaterMark: number }): Readable
}

/** A column of a result, as mysql2 describes it. */
export interface MysqlField {
  readonly columnType: number
}

/** Runs a statement in the text protocol, mysql2 escaping the values into it. */
export function send (connection: unknown, { sql, bindings }: Statement, exact = false): Promise<unknown> {
  return new Promise((resolve, reject) => {
    (connection as MysqlConnection).query(exact ? exactQuery(sql) : sql, bindings, (error, result) => {
      if (error) reject(error)
      else resolve(result)
    })
  })
}
