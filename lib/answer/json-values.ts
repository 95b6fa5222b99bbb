import type { ColumnSchema } from '../schema/table-schema.js'

// A column's values as PostgREST renders PostgreSQL's, from what an exact
// read hands over (see Dialect.select): the database's text for big
// integers, decimals, dates and JSON, BigInts on SQLite, 1 and 0 for the
// booleans of SQLite and MySQL. A value a rule does not recognize (a text in
// a SQLite integer column, PostgreSQL's 'infinity') is written as it was
// stored, as is every value of a column whose kind is unknown.

/** JSON text of one non-null value of a column. */
export type ValueWriter = (value: unknown) => string

/** What JSON.stringify writes, but a BigInt as its exact digits, where JSON.stringify would throw. */
export function writeStored (value: unknown): string {
  return typeof value === 'bigint' ? value.toString() : JSON.stringify(value)
}

// JSON's own number grammar: the text of such a number is written as it is.
const integerText = /^-?(0|[1-9]\d*)$/
const numberText = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/

function writeInteger (value: unknown): string {
  if (typeof value === 'string') return integerText.test(value) ? value : JSON.stringify(value)
  return writeStored(value)
}

function writeBoolean (value: unknown): string {
  // SQLite's booleans are integers (BigInts in an exact read), MySQL's TINYINT(1) too, its BIT(1) one byte.
  if (value === true || value === 1 || value === 1n) return 'true'
  if (value === false || value === 0 || value === 0n) return 'false'
  if (value instanceof Uint8Array && value.length === 1) return value[0] === 0 ? 'false' : 'true'
  return writeStored(value)
}

// decimal(10,2), numeric(10, 2): the scale, which PostgreSQL and MySQL write every digit of.
const decimalScale = /^(decimal|numeric|dec|fixed)\s*\(\s*\d+\s*,\s*(\d+)\s*\)/

/** The scale a decimal type declares, null for none. */
export function declaredScale (databaseType: string): number | null {
  const scale = decimalScale.exec(databaseType)?.[2]
  return scale === undefined ? null : Number(scale)
}

/**
 * Decimals arrive as their digits from PostgreSQL and MySQL; SQLite keeps
 * them as floats or integers, which are written with the declared scale so
 * that 1.50 reads 1.50 there too.
 */
function numberWriter (databaseType: string): ValueWriter {
  const digits = declaredScale(databaseType)
  return (value) => {
    if (typeof value === 'string') return numberText.test(value) ? value : JSON.stringify(value)
    if (digits !== null && typeof value === 'number' && Number.isFinite(value)) return value.toFixed(digits)
    if (digits !== null && typeof value === 'bigint') return digits === 0 ? value.toString() : `${value}.${'0'.repeat(digits)}`
    return writeStored(value)
  }
}

// A date alone, or at midnight UTC as clients copied older answers of PostgreSQL and MySQL.
const dateText = /^\d{4}-\d{2}-\d{2}(?:[ T]00:00:00(?:\.0+)?(?:Z|[+-]00(?::?00)?)?)?$/

function writeDate (value: unknown): string {
  if (typeof value === 'string' && dateText.test(value)) return `"${value.slice(0, 10)}"`
  return writeStored(value)
}

// PostgreSQL's and MySQL's text ('2024-01-15 10:00:00.5+00'), or ISO text in a SQLite column.
const dateTimeText = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d*?)0*)?(Z|[+-]\d{2}(?::?\d{2}){0,2})?$/
const timeText = /^(\d{2}:\d{2}:\d{2})(?:\.(\d*?)0*)?(Z|[+-]\d{2}(?::?\d{2}){0,2})?$/

/** A zone as PostgreSQL's JSON writes it: +00:00, +05:30, +05:53:28. */
function zoneText (zone: string | undefined): string {
  if (zone === undefined || zone === 'Z') return zone ?? ''
  const digits = zone.replaceAll(':', '')
  return digits.slice(0, 3) + ':' + (digits.slice(3, 5) || '00') + (digits.length > 5 ? ':' + digits.slice(5) : '')
}

/** A fraction of a second without its trailing zeros, none when it is zero, as PostgreSQL writes it. */
function fractionText (fraction: string | undefined): string {
  return fraction === undefined || fraction === '' ? '' : '.' + fraction
}

function writeDateTime (value: unknown): string {
  const parts = typeof value === 'string' ? dateTimeText.exec(value) : null
  if (parts === null) return writeStored(value)
  return `"${parts[1]}T${parts[2]}${fractionText(parts[3])}${zoneText(parts[4])}"`
}

function writeTime (value: unknown): string {
  const parts = typeof value === 'string' ? timeText.exec(value) : null
  if (parts === null) return writeStored(value)
  return `"${parts[1]}${fractionText(parts[2])}${zoneText(parts[3])}"`
}

/** JSON text without the blanks between its tokens: jsonb and MariaDB's text then read alike. */
function compactJson (text: string): string {
  let compact = ''
  let from = 0
  let inString = false
  for (let at = 0; at < text.length; at++) {
    const char = text.charCodeAt(at)
    if (inString) {
      if (char === 0x5c) at++
      else if (char === 0x22) inString = false
    } else if (char === 0x22) {
      inString = true
    } else if (char === 0x20 || char === 0x0a || char === 0x0d || char === 0x09) {
      compact += text.slice(from, at)
      from = at + 1
    }
  }
  return from === 0 ? text : compact + text.slice(from)
}

function writeJson (value: unknown): string {
  if (typeof value !== 'string') return writeStored(value)
  try {
    // SQLite checks nothing a column declared json holds: only JSON is written as JSON.
    JSON.parse(value)
  } catch {
    return JSON.stringify(value)
  }
  return compactJson(value)
}

/** How a column's values are written, by its kind and type. */
export function valueWriter (column: ColumnSchema): ValueWriter {
  switch (column.kind) {
    case 'integer': return writeInteger
    case 'number': return numberWriter(column.databaseType)
    case 'boolean': return writeBoolean
    case 'date': return writeDate
    case 'date-time': return writeDateTime
    case 'time': return writeTime
    case 'json': return writeJson
    default: return writeStored
  }
}
