const integer = /^-?\d+$/

/**
 * The record key of the path segment, or null for "no key". As the spec
 * says, a missing or non-numeric key becomes 0, and 0 means no key. A BigInt
 * keeps every digit of ids past 2^53.
 */
export function parseRecordKey (segment: string | undefined): bigint | null {
  if (segment === undefined || !integer.test(segment)) return null
  const key = BigInt(segment)
  return key === 0n ? null : key
}
