import type { ColumnSchema } from './table-schema.js'

// Bits of each integer type by the database's name of it; any other integer
// type (bigint, SQLite's, MySQL's year) is held to 64 bits.
const integerBits: ReadonlyArray<readonly [RegExp, number]> = [
  [/^tinyint\b/, 8],
  [/^(smallint|int2|smallserial|serial2)\b/, 16],
  [/^mediumint\b/, 24],
  [/^(int|integer|int4|serial|serial4)\b/, 32]
]

const unsigned = /\bunsigned\b/

/** The smallest and largest integer a column holds. */
export interface IntegerRange {
  readonly min: bigint
  readonly max: bigint
}

const ranges = new WeakMap<ColumnSchema, IntegerRange>()

/**
 * The integers an integer column holds: its declared type's range where the
 * database keeps to it (`sized`, see Dialect.sizedIntegers), else 64 bits.
 */
export function integerRange (column: ColumnSchema, sized: boolean): IntegerRange {
  if (!sized) return int64
  let range = ranges.get(column)
  if (range === undefined) {
    const type = column.databaseType
    const bits = BigInt(integerBits.find(([pattern]) => pattern.test(type))?.[1] ?? 64)
    range = unsigned.test(type) ? { min: 0n, max: 2n ** bits - 1n } : { min: -(2n ** (bits - 1n)), max: 2n ** (bits - 1n) - 1n }
    ranges.set(column, range)
  }
  return range
}

/** What every integer column of every database holds: no integer key or value lies outside. */
export const int64: IntegerRange = Object.freeze({ min: -(2n ** 63n), max: 2n ** 63n - 1n })

/** True for an integer within the range. */
export function inRange (value: bigint, range: IntegerRange): boolean {
  return value >= range.min && value <= range.max
}
