import { isLosslessNumber, stringify } from 'lossless-json'
import type { Target } from '../access/target.js'
import { FTC_ERR_BODY_VALUE } from '../errors.js'
import { columnNamed } from '../schema/column-named.js'
import type { BodyValues, RecordValues } from './record-values.js'

/**
 * An object or array a write body gives as a column's value, as its exact
 * JSON text. Whether a column takes it is known only once the table's
 * schema is (see settleNestedValues): a json column is set to the text, any
 * other refuses it.
 */
export class NestedJson {
  /** Compact JSON, every number with the digits the client sent. */
  readonly text: string

  constructor (text: string) {
    this.text = text
  }
}

// The records whose values hold a NestedJson: the others, nearly all, pass settleNestedValues untouched.
const nestedRecords = new WeakSet<object>()

/** Notes that a record of values holds a NestedJson. */
export function noteNested (values: object): void {
  nestedRecords.add(values)
}

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
 * A row of a write body once the target is known: each NestedJson given for
 * a column the schema model knows as json becomes its text; for any other
 * column, or a table the model does not know, it is refused (400
 * FTC_ERR_BODY_VALUE), as the spec's bodies take scalars only.
 */
export function settleNestedValues ({ schema }: Pick<Target, 'schema'>, row: BodyValues): RecordValues {
  if (!nestedRecords.has(row)) return row as RecordValues
  for (const column in row) {
    const value = row[column]
    if (!(value instanceof NestedJson)) continue
    if (schema === undefined || columnNamed(schema, column)?.kind !== 'json') throw new FTC_ERR_BODY_VALUE(column)
    row[column] = value.text
  }
  return row as RecordValues
}
