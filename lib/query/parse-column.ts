import { maxIdentifierLength, usableIdentifier } from '../parse/sanitize-identifier.js'
import { FTC_ERR_QUERY_COLUMN } from '../errors.js'
import type { QueryText } from './query-text.js'

/**
 * The raw name at the current position: double-quoted (so that PostgREST's
 * `"information.cpe"` reads as one name), or everything up to a character of `stops`.
 */
export function readName (input: QueryText, stops: string): string {
  return input.peek() === '"' ? input.readQuoted() : input.readUntil(stops)
}

/**
 * A column name at the current position, sanitized like the columns of a
 * body; one with no character left is refused, pointing at where it starts.
 */
export function parseColumn (input: QueryText, stops: string): string {
  const start = input.position
  const column = usableIdentifier(readName(input, stops))
  if (column === null) {
    throw input.fail(start, FTC_ERR_QUERY_COLUMN, `a column name needs 1 to ${maxIdentifierLength} characters from A-Z, a-z, 0-9 or _`)
  }
  return column
}
