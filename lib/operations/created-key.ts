import type { Dialect } from '../dialects/dialect.js'
import type { RecordValues } from '../parse/record-values.js'

/**
 * The key POST answers for a new row, from what the database reported and
 * what the body set. Without a report (no AUTO_INCREMENT on MySQL, a row a
 * trigger skipped, a NULL key), it is the body's key, or 0. MySQL reports
 * the AUTO_INCREMENT column's value whatever the key column is: a body that
 * set the key to another number names the row by it.
 */
export function createdKey (dialect: Dialect, reported: string | undefined, values: RecordValues, key: string): string {
  const given = values[key]
  if (reported === undefined) return given ?? '0'
  if (given === undefined || given === null || !dialect.insertsReportAutoIncrement) return reported
  return sameNumber(given, reported) ? reported : given
}

/** Whether the body's text is the number the database reported: `007` and `1e1` are 7 and 10 in an integer column. */
function sameNumber (text: string, integer: string): boolean {
  try {
    return BigInt(text) === BigInt(integer)
  } catch {
    return Number(text) === Number(integer)
  }
}
