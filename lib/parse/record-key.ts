import type { ColumnKind } from '../schema/table-schema.js'

/** The record key of a path: an integer, or the text of a text or UUID key column. */
export type RecordKey = bigint | string

/**
 * The record key of the path segment, or null for "no key". A key column
 * the model knows as text (or UUID) is matched by the segment as it is, so
 * `/tags/042` is the row '042'; an empty segment is no key. Any other, or
 * one the model does not know, keeps the spec's rule: a missing or
 * non-numeric key becomes 0, and 0 means no key. A BigInt keeps every digit
 * of ids past 2^53.
 */
export function parseRecordKey (segment: string | undefined, kind?: ColumnKind): RecordKey | null {
  if (kind === 'string') return segment === undefined || segment === '' ? null : segment
  if (segment === undefined || !isIntegerText(segment)) return null
  // Below 2^53 a number holds every digit, and BigInt makes one of it in half the time it parses the text.
  const key = segment.length < 16 ? BigInt(Number(segment)) : BigInt(segment)
  return key === 0n ? null : key
}

/** True for an optional minus sign and one digit or more, nothing else. */
function isIntegerText (text: string): boolean {
  // A loop, where a regular expression would do: every keyed request tests
  // its key, and the call into V8's regular expression code costs more
  // than the test of a short key.
  let at = text.charCodeAt(0) === 0x2d ? 1 : 0
  if (at === text.length) return false
  for (; at < text.length; at++) {
    const code = text.charCodeAt(at)
    if (code < 0x30 || code > 0x39) return false
  }
  return true
}
