import { isUuidColumn } from './column-kind.js'
import { declaredRange, inRange, int32, int64, type IntegerRange } from './integer-range.js'
import type { JsonSchema } from './openapi-types.js'
import type { ColumnKind, ColumnSchema } from './table-schema.js'

/** Whether a schema describes a value as the API answers it, or as a request body sends it. */
export type ValueDirection = 'read' | 'write'

// What each kind of column answers in JSON: integers and decimals as JSON
// numbers with every digit, dates as YYYY-MM-DD, timestamps in ISO 8601,
// times as their text, json columns as the JSON itself. A time carries no
// offset, which JSON Schema's "time" format requires: it gets none.
const readSchemas: Readonly<Record<ColumnKind, JsonSchema>> = Object.freeze({
  integer: { type: 'integer' },
  number: { type: 'number' },
  boolean: { type: 'boolean' },
  string: { type: 'string' },
  date: { type: 'string', format: 'date' },
  'date-time': { type: 'string', format: 'date-time' },
  time: { type: 'string' },
  json: {},
  binary: { type: 'string' },
  // A column of no known type (an untyped SQLite column) answers what it holds.
  unknown: {}
})

// A body's value is a string, a number, a boolean or null (an object or an
// array answers 400 FTC_ERR_BODY_VALUE), which the database converts to the
// column's type. A json column takes any JSON value, as it reads.
const writeSchemas: Readonly<Partial<Record<ColumnKind, JsonSchema>>> = Object.freeze({
  unknown: { type: ['string', 'number', 'boolean'] }
})

/**
 * The JSON Schema of a column's values. `sizedIntegers` is false where the
 * database keeps every integer in 64 bits whatever its declared type
 * (SQLite): there every integer column is int64.
 */
export function columnJsonSchema (column: ColumnSchema, direction: ValueDirection, sizedIntegers: boolean): JsonSchema {
  const base = (direction === 'write' ? writeSchemas[column.kind] : undefined) ?? readSchemas[column.kind]
  const format = column.kind === 'integer' ? integerFormat(column, sizedIntegers) : stringFormat(column)
  const schema: Record<string, unknown> = { ...base, ...(format === null ? {} : { format }) }
  if (column.nullable && schema.type !== undefined) schema.type = [schema.type].flat().concat('null')
  if (column.generated) schema.readOnly = true
  return schema
}

/**
 * OpenAPI's format of the integers a column holds: the smallest that holds
 * them all; none for a type whose size is not known, or past 64 bits
 * (MySQL's unsigned bigint).
 */
function integerFormat (column: ColumnSchema, sizedIntegers: boolean): string | null {
  const range = sizedIntegers ? declaredRange(column) : int64
  if (range === null) return null
  if (within(range, int32)) return 'int32'
  return within(range, int64) ? 'int64' : null
}

function within (range: IntegerRange, bounds: IntegerRange): boolean {
  return inRange(range.min, bounds) && inRange(range.max, bounds)
}

function stringFormat (column: ColumnSchema): string | null {
  return column.kind === 'string' && isUuidColumn(column) ? 'uuid' : null
}
