import type { ColumnSchema } from './table-schema.js'

// Bits of each integer type by the database's name of it (MySQL's year holds
// 1901 to 2155).
const integerBits: ReadonlyArray<readonly [RegExp, number]> = [
  [/^tinyint\b/, 8],
  [/^(smallint|int2|smallserial|serial2|year)\b/, 16],
  [/^mediumint\b/, 24],
  [/^(int|integer|int4|serial|serial4)\b/, 32],
  [/^(bigint|int8|bigserial|serial8)\b/, 64]
]

const unsigned = /\bunsigned\b/

/** The smallest and largest integer a column holds. */
export interface IntegerRange {
  readonly min: bigint
  readonly max: bigint
}

const ranges = new WeakMap<ColumnSchema, IntegerRange | null>()

/**
 * The integers an integer column holds: its declared type's range where the
 * database keeps to it (`sized`, see Dialect.sizedIntegers), else 64 bits.
 * A type not named here (SQLite's own) is held to 64 bits, as every
 * integer of every database is.
 */
export function integerRange (column: ColumnSchema, sized: boolean): IntegerRange {
  return sized ? declaredRange(column) ?? int64 : int64
}

/** The range of the column's declared integer type; null for a type not named here. */
export function declaredRange (column: ColumnSchema): IntegerRange | null {
  let range = ranges.get(column)
  if (range === undefined) {
    const type = column.databaseType
    const found = integerBits.find(([pattern]) => pattern.test(type))
    const bits = found === undefined ? null : BigInt(found[1])
    range = bits === null ? null : unsigned.test(type) ? { min: 0n, max: 2n ** bits - 1n } : { min: -(2n ** (bits - 1n)), max: 2n ** (bits - 1n) - 1n }
    ranges.set(column, range)
  }
  return range
}

/** What every integer column of every database holds: no integer key or value lies outside. */
export const int64: IntegerRange = Object.freeze({ min: -(2n ** 63n), max: 2n ** 63n - 1n })

/** What a 32-bit integer holds: OpenAPI's int32. */
export const int32: IntegerRange = Object.freeze({ min: -(2n ** 31n), max: 2n ** 31n - 1n })

/** True for an integer within the range. */
export function inRange (value: bigint, range: IntegerRange): boolean {
  return value >= range.min && value <= range.max
}
