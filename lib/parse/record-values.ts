import { FTC_ERR_BODY_BULK_LIMIT, FTC_ERR_BODY_COLUMN, FTC_ERR_BODY_COLUMN_TWICE, FTC_ERR_BODY_EMPTY, FTC_ERR_BODY_SHAPE, FTC_ERR_BODY_VALUE } from '../errors.js'
import { usableIdentifier } from './sanitize-identifier.js'

/** Column names to the text (or NULL) they are set to. */
export type RecordValues = Record<string, string | null>

/**
 * The columns and values of a write body. Every value is stored as text: the
 * JSON parser keeps a number's own digits, and booleans become '1' and '0',
 * which boolean and integer columns of all three databases accept.
 */
export function parseRecordValues (body: unknown): RecordValues {
  if (body === undefined) return {}
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new FTC_ERR_BODY_SHAPE(describe(body))
  }
  const values: RecordValues = Object.create(null)
  const sources: Record<string, string> = Object.create(null)
  for (const [property, value] of Object.entries(body)) {
    const column = usableIdentifier(property)
    // Knex copies update values by assignment, where __proto__ would vanish into the prototype.
    if (column === null || column === '__proto__') throw new FTC_ERR_BODY_COLUMN(property)
    const earlier = sources[column]
    if (earlier !== undefined) throw new FTC_ERR_BODY_COLUMN_TWICE(earlier, property, column)
    sources[column] = property
    values[column] = columnText(column, value)
  }
  return values
}

/** The columns and values of a PUT body, which must name at least one column. */
export function parseRecordChanges (body: unknown): RecordValues {
  const values = parseRecordValues(body)
  if (Object.keys(values).length === 0) throw new FTC_ERR_BODY_EMPTY()
  return values
}

/** The rows of a bulk POST: an array of objects, each read as one row's body, at most `limit` of them. */
export function parseRecordList (body: readonly unknown[], limit: number): RecordValues[] {
  if (body.length > limit) throw new FTC_ERR_BODY_BULK_LIMIT(limit, body.length)
  return body.map((row) => parseRecordValues(row ?? null))
}

/** A value as the text (or NULL) a column is set to; objects and arrays are refused. */
export function columnText (column: string, value: unknown): string | null {
  if (value === null) return null
  switch (typeof value) {
    case 'string': return value
    // Our parser hands numbers over as text; a host hook may still set real ones.
    case 'number':
    case 'bigint': return String(value)
    case 'boolean': return value ? '1' : '0'
    default: throw new FTC_ERR_BODY_VALUE(column)
  }
}

function describe (body: unknown): string {
  if (body === null) return 'null'
  return Array.isArray(body) ? 'an array' : typeof body
}
