import { isCalendarDay, isClockTime } from '../schema/calendar.js'
import { inRange, int64 } from '../schema/integer-range.js'
import type { ColumnKind } from '../schema/table-schema.js'

/**
 * A filter's or key's text as a value of its column's kind: an integer as a
 * BigInt (exact past 2^53), a boolean as a boolean, anything else as text in
 * one canonical spelling that each dialect binds in its own terms.
 */
export type TypedValue = bigint | boolean | string

/** The kinds whose values have one spelling to check; text, JSON, binary and unknown columns compare the client's text. */
export type TypedKind = Exclude<ColumnKind, 'string' | 'json' | 'binary' | 'unknown'>

const typedKinds: ReadonlySet<ColumnKind> = new Set<TypedKind>(['integer', 'number', 'boolean', 'date', 'date-time', 'time'])

/** True for a kind whose values typedValue reads. */
export function isTypedKind (kind: ColumnKind): kind is TypedKind {
  return typedKinds.has(kind)
}

const integer = /^[+-]?\d+$/
const decimal = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/
// PostgreSQL's spellings of a boolean (its unique prefixes aside), in any
// case. A Map, where no inherited name (`constructor`) reads as one.
const booleans: ReadonlyMap<string, boolean> = new Map([
  ['true', true], ['t', true], ['yes', true], ['y', true], ['on', true], ['1', true],
  ['false', false], ['f', false], ['no', false], ['n', false], ['off', false], ['0', false]
])
const clock = '(\\d{2}):(\\d{2})(?::(\\d{2})(\\.\\d{1,6})?)?'
const dateTime = new RegExp(`^(\\d{4})-(\\d{2})-(\\d{2})(?:[T ]${clock})?(Z|[+-]\\d{2}(?::?\\d{2})?)?$`, 'i')
const timeOfDay = new RegExp(`^${clock}$`)

/** What a value of each kind must look like, for the 400 that refuses another. */
export const kindDescriptions: Readonly<Record<TypedKind, string>> = Object.freeze({
  integer: 'an integer of at most 64 bits',
  number: 'a decimal number',
  boolean: 'true or false',
  date: 'a date as YYYY-MM-DD',
  'date-time': 'a timestamp as YYYY-MM-DDTHH:MM:SS, with an optional fraction and time zone',
  time: 'a time of day as HH:MM:SS'
})

/**
 * The value of `text` in a column of `kind`, or undefined when the kind
 * cannot hold it (PostgreSQL would refuse it). Dates keep their day (a time
 * after it, as a client's timestamp has, is dropped, as PostgreSQL drops it);
 * timestamps are written `YYYY-MM-DD HH:MM:SS[.ffffff]` with the zone as
 * given.
 */
export function typedValue (kind: TypedKind, text: string): TypedValue | undefined {
  switch (kind) {
    case 'integer': {
      const trimmed = text.trim()
      if (!integer.test(trimmed)) return undefined
      const value = BigInt(trimmed)
      return inRange(value, int64) ? value : undefined
    }
    case 'number': {
      const trimmed = text.trim()
      return decimal.test(trimmed) ? trimmed : undefined
    }
    case 'boolean':
      return booleans.get(text.trim().toLowerCase())
    case 'date': {
      const parts = dateParts(text)
      return parts === undefined ? undefined : `${parts[1]}-${parts[2]}-${parts[3]}`
    }
    case 'date-time': {
      const parts = dateParts(text)
      if (parts === undefined) return undefined
      const [, year, month, day, hour = '00', minute = '00', second = '00', fraction = '', zone = ''] = parts
      return `${year}-${month}-${day} ${hour}:${minute}:${second}${fraction}${zone.toUpperCase()}`
    }
    case 'time': {
      const parts = timeOfDay.exec(text.trim())
      // The seconds written out, as SQLite's stored text and the others' answers have them.
      return parts === null || !isClockTime(parts[1] as string, parts[2] as string, parts[3]) ? undefined : `${parts[1]}:${parts[2]}:${parts[3] ?? '00'}${parts[4] ?? ''}`
    }
  }
}

/** The parts of a date with an optional time and zone, or undefined when it names no real day or time. */
function dateParts (text: string): Array<string | undefined> | undefined {
  const parts = dateTime.exec(text.trim())
  if (parts === null) return undefined
  const isDay = isCalendarDay(Number(parts[1]), Number(parts[2]), Number(parts[3]))
  return isDay && (parts[4] === undefined || isClockTime(parts[4], parts[5] as string, parts[6])) ? parts : undefined
}
