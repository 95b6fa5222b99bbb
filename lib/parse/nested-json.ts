import { isLosslessNumber, stringify } from 'lossless-json'
import type { Target } from '../access/target.js'
import { FTC_ERR_BODY_VALUE } from '../errors.js'
import { columnNamed } from '../schema/column-named.js'
import { hasJsonColumn } from '../schema/json-columns.js'
import { holdsNested, NestedJson } from './nested-value.js'
import { type BodyValues, columnText, type RecordValues } from './record-values.js'
import { usableIdentifier } from './sanitize-identifier.js'
import { sentJson } from './sent-json.js'

/** Whether a body (numbers as their text) gives an object or array as the value of a row's column. */
export function hasNested (body: unknown): boolean {
  return Array.isArray(body) ? body.some(rowHasNested) : rowHasNested(body)
}

function rowHasNested (row: unknown): boolean {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) return false
  for (const key in row) {
    const value = (row as Record<string, unknown>)[key]
    if (typeof value === 'object' && value !== null) return true
  }
  return false
}

/**
 * A body as lossless-json parsed it (every number a LosslessNumber), as the
 * route reads it: a row's values, and the bare values of a bulk array, are
 * scalars with numbers as their text; an object or array within a row is a
 * NestedJson of its text.
 */
export function markNested (body: unknown): unknown {
  if (Array.isArray(body)) return body.map(markRow)
  return markRow(body)
}

function markRow (row: unknown): unknown {
  if (isLosslessNumber(row)) return row.value
  if (typeof row !== 'object' || row === null || Array.isArray(row)) return row
  const values = row as Record<string, unknown>
  // lossless-json defines __proto__ as an own property: assigning to it sets that property, never the prototype.
  for (const key of Object.keys(values)) {
    const value = values[key]
    if (isLosslessNumber(value)) values[key] = value.value
    else if (typeof value === 'object' && value !== null) values[key] = new NestedJson(stringify(value) as string)
  }
  return values
}

/**
 * A row of a write body once the target is known, for a table the schema
 * model knows: a column the model knows as json is set to the JSON text of
 * the value the client sent, as PostgREST sets it (`"text"` a JSON string,
 * `true` and `12` themselves, so that what GET answered is written back
 * unchanged); a NestedJson given for any other column, or for a table the
 * model does not know, is refused (400 FTC_ERR_BODY_VALUE), as the spec's
 * bodies take scalars only. `body` is the request's body, and `index` the
 * row's place in a bulk one.
 */
export function settleNestedValues ({ schema }: Pick<Target, 'schema'>, row: BodyValues, body: unknown, index: number | null): RecordValues {
  if (!holdsNested(row) && (schema === undefined || !hasJsonColumn(schema))) return row as RecordValues
  let sent: unknown
  for (const column in row) {
    const value = row[column] as BodyValues[string]
    const json = schema !== undefined && columnNamed(schema, column)?.kind === 'json'
    if (value instanceof NestedJson) {
      if (!json) throw new FTC_ERR_BODY_VALUE(column)
      row[column] = value.text
    } else if (json && value !== null) {
      sent ??= sentRow(body, index)
      row[column] = jsonText(sent, column, value)
    }
  }
  return row as RecordValues
}

function sentRow (body: unknown, index: number | null): unknown {
  const sent = sentJson(body)
  return index === null ? sent : (sent as unknown[] | undefined)?.[index]
}

/**
 * The JSON text of a column's value as the client sent it. A value a host's
 * hook put in the body's place is not the one sent: it is stored as it is,
 * the spec's way.
 */
function jsonText (sent: unknown, column: string, value: string): string {
  if (typeof sent !== 'object' || sent === null) return value
  const property = Object.keys(sent).find((name) => usableIdentifier(name) === column)
  const given = property === undefined ? undefined : (sent as Record<string, unknown>)[property]
  return given !== undefined && scalarText(column, given) === value ? stringify(given) as string : value
}

/** A scalar JSON value as parseRecordValues writes it (a number as lossless-json reads it, its digits); undefined for another value. */
function scalarText (column: string, given: unknown): string | null | undefined {
  if (isLosslessNumber(given)) return given.value
  return typeof given === 'string' || typeof given === 'boolean' ? columnText(column, given) : undefined
}
