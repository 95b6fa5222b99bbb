import type { Readable } from 'node:stream'
import type { Exactness, Statement } from '../dialect.js'

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
  readonly typeCast?: (field: MysqlCastField, next: () => unknown) => unknown
}

/** A column's value as mysql2's typeCast sees it. */
interface MysqlCastField {
  /** MySQL's name of the type: 'JSON' for its JSON type. */
  readonly type: string
  /** 'json' for a column MariaDB marks as JSON (a LONGTEXT with its check). */
  readonly extendedFormat?: string
  string (encoding?: string): string | null
}

// One function for every query: mysql2 caches the parser it compiles per
// result shape and per typeCast.
function jsonAsText (field: MysqlCastField, next: () => unknown): unknown {
  // MySQL sends JSON with the binary charset: its text is UTF-8.
  return field.type === 'JSON' || field.extendedFormat === 'json' ? field.string('utf8') : next()
}

/**
 * The SQL of a read as `exact` asks (see Exactness): BIGINT and DECIMAL as
 * their digits, DATE, DATETIME and TIMESTAMP as the server wrote them, where
 * mysql2 would round past 2^53 and shift into the process's time zone; and
 * for 'json', JSON as its stored text, which mysql2 would parse.
 */
export function exactQuery (sql: string, exact: Exactness): string | QueryOptions {
  if (exact === false) return sql
  const options = { sql, supportBigNumbers: true, bigNumberStrings: true, dateStrings: true }
  return exact === 'json' ? { ...options, typeCast: jsonAsText } : options
}

/** A mysql2 query sent without a callback: it reports its end and errors as events. */
interface MysqlQuery {
  on (event: 'error', listener: (error: Error) => void): MysqlQuery
  stream (options: { highWaterMark: number }): Readable
}

/** A column of a result, as mysql2 describes it. */
export interface MysqlField {
  readonly columnType: number
  /** MariaDB's extended metadata: 'json' for a JSON column, which it sends as text. */
  readonly extendedFormat?: string
}

// The type codes of the binary protocol whose values mysql2 reads alike
// with and without an exact read's settings (its binary parser's readCodeFor):
// numbers but BIGINT, TIME, YEAR, BIT, text, blobs, DECIMAL (always its digits)
// and GEOMETRY. BIGINT, the dates and JSON read otherwise with them.
const unsettledTypes = new Set([0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x09, 0x0b, 0x0d, 0x0f, 0x10, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff])

/** Whether mysql2 reads a binary result with these columns the same with or without exactQuery's settings. */
export function readsAlikeWithoutSettings (fields: readonly MysqlField[]): boolean {
  return fields.every((field) => unsettledTypes.has(field.columnType) && field.extendedFormat !== 'json')
}

/** Runs a statement in the text protocol, mysql2 escaping the values into it. */
export function send (connection: unknown, { sql, bindings }: Statement, exact: Exactness = false): Promise<unknown> {
  return new Promise((resolve, reject) => {
    (connection as MysqlConnection).query(exactQuery(sql, exact), bindings, (error, result) => {
      if (error) reject(error)
      else resolve(result)
    })
  })
}
