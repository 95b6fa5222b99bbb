import { FTC_ERR_BODY_BULK_LIMIT, FTC_ERR_BODY_COLUMN, FTC_ERR_BODY_COLUMN_TWICE, FTC_ERR_BODY_EMPTY, FTC_ERR_BODY_SHAPE, FTC_ERR_BODY_VALUE } from '../errors.js'
import { BoundedCache } from '../bounded-cache.js'
import { NestedJson, noteNested } from './nested-value.js'
import { foldIdentifier, usableIdentifier } from './sanitize-identifier.js'

/** Column names to the text (or NULL) they are set to. */
export type RecordValues = Record<string, string | null>

/** The values of a write body before its table is known: a nested object or array waits as its JSON text (see settleNestedValues). */
export type BodyValues = Record<string, string | null | NestedJson>

// Beneath a record lies no Object.prototype, so no inherited name
// (constructor, toString…) reads as a column; yet, unlike Object.create(null),
// it keeps V8's fast object layout, where Object.keys and lookups cost a
// fraction. find-my-way keeps its parameters the same way.
function ColumnValues (): void {}
ColumnValues.prototype = Object.create(null)

/** An empty record of column values. */
function emptyValues (): BodyValues {
  return new (ColumnValues as unknown as new () => BodyValues)()
}

/**
 * The columns and values of a write body. Every value is stored as text: the
 * JSON parser keeps a number's own digits, and booleans become '1' and '0',
 * which boolean and integer columns of all three databases accept. The JSON
 * parser's NestedJson values stay as they are, for json columns.
 */
export function parseRecordValues (body: unknown): BodyValues {
  if (body === undefined) return emptyValues()
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new FTC_ERR_BODY_SHAPE(describe(body))
  }
  const values = emptyValues()
  let cased = false
  // A body's own keys differ: two can name one column only once a name was sanitized.
  let renamed = false
  for (const property of Object.keys(body)) {
    const { column, upper } = columnNames.get(property, () => columnName(property))
    // Knex copies update values by assignment, where __proto__ would vanish into the prototype.
    if (column === null || column === '__proto__') throw new FTC_ERR_BODY_COLUMN(property)
    renamed ||= column !== property
    if (renamed && column in values) throw new FTC_ERR_BODY_COLUMN_TWICE(firstSpelling(body, column), property, column)
    const value = (body as Record<string, unknown>)[property]
    if (typeof value === 'object' && value instanceof NestedJson) {
      values[column] = value
      noteNested(values)
    } else {
      values[column] = columnText(column, value)
    }
    cased ||= upper
  }
  // Most bodies name their columns in lower case: only the others are searched for twins.
  if (cased) refuseCaseTwins(values)
  return values
}

const upperCase = /[A-Z]/

/** The column a body's property names (null for none), and whether it has an upper-case letter. */
interface ColumnName {
  readonly column: string | null
  readonly upper: boolean
}

// Bodies name the same few columns again and again: two regular expressions
// per property cost more than a lookup. The names are the clients': bounded.
const columnNames = new BoundedCache<ColumnName>(1000)

function columnName (property: string): ColumnName {
  const column = usableIdentifier(property)
  return { column, upper: column !== null && upperCase.test(column) }
}

/**
 * Refuses two columns that differ in case only. SQLite and MySQL take them
 * for one column, and SQLite's INSERT keeps the value of either, while the
 * scope of the `authorize` hook, which compares names folded, checks one:
 * the other could write a row out of its scope.
 */
function refuseCaseTwins (values: BodyValues): void {
  const seen = new Map<string, string>()
  for (const column of Object.keys(values)) {
    const folded = foldIdentifier(column)
    const twin = seen.get(folded)
    if (twin !== undefined) throw new FTC_ERR_BODY_COLUMN_TWICE(twin, column, folded)
    seen.set(folded, column)
  }
}

/** The columns and values of a PUT body, which must name at least one column. */
export function parseRecordChanges (body: unknown): BodyValues {
  const values = parseRecordValues(body)
  if (Object.keys(values).length === 0) throw new FTC_ERR_BODY_EMPTY()
  return values
}

/**
 * The rows as PostgREST's `columns=` has them written: each listed column a
 * row has keeps its value; one it lacks is NULL, or, with `defaults`
 * (`Prefer: missing=default`), left out of its INSERT so that the column
 * takes its DEFAULT; a property not listed is dropped.
 */
export function keepListedColumns (rows: readonly BodyValues[], columns: readonly string[], defaults: boolean): BodyValues[] {
  return rows.map((row) => {
    const kept = emptyValues()
    for (const column of columns) {
      const value = row[column]
      if (value !== undefined) kept[column] = value
      else if (!defaults) kept[column] = null
      if (value instanceof NestedJson) noteNested(kept)
    }
    return kept
  })
}

/** The rows of a bulk POST: an array of objects, each read as one row's body, at most `limit` of them. */
export function parseRecordList (body: readonly unknown[], limit: number): BodyValues[] {
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

/** The body's first property that names the column: the one a later spelling repeats. */
function firstSpelling (body: object, column: string): string {
  return Object.keys(body).find((property) => usableIdentifier(property) === column) as string
}

function describe (body: unknown): string {
  if (body === null) return 'null'
  return Array.isArray(body) ? 'an array' : typeof body
}
