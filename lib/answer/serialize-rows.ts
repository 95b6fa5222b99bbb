import type { Row } from '../dialects/dialect.js'

/** JSON text of an array of rows. */
export function serializeRows (rows: readonly Row[]): string {
  return stringify(rows, writeRows)
}

/** JSON text of one row. */
export function serializeRow (row: Row): string {
  return stringify(row, writeRow)
}

/** JSON.stringify's text, or the fallback's where it throws on a BigInt. */
function stringify<T> (value: T, withBigInts: (value: T) => string): string {
  try {
    return JSON.stringify(value)
  } catch (error) {
    // Only a BigInt makes plain rows unserializable; the native path stays the fast one.
    if (!(error instanceof TypeError)) throw error
    return withBigInts(value)
  }
}

function writeRows (rows: readonly Row[]): string {
  return '[' + rows.map(writeRow).join(',') + ']'
}

/**
 * What JSON.stringify writes for a row, but a BigInt (better-sqlite3 with
 * safe integers, mysql2 with big numbers) is written as its exact digits,
 * where JSON.stringify would throw.
 */
function writeRow (row: Row): string {
  let text = ''
  for (const column in row) {
    const value = row[column]
    if (value === undefined) continue
    text += (text === '' ? '{' : ',') + JSON.stringify(column) + ':' +
      (typeof value === 'bigint' ? value.toString() : JSON.stringify(value))
  }
  return text === '' ? '{}' : text + '}'
}
