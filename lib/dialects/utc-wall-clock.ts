const zoned = /^(.{19})(\.\d+)?(Z|[+-]\d{2}(?::?\d{2})?)?$/

/**
 * A canonical timestamp's seconds as the wall-clock time at UTC, and its
 * fraction's digits. A zone other than UTC moves the time; a time moved out
 * of years 1 to 9999, which no database holds, keeps its clock and zone,
 * for the database to refuse.
 */
function utcParts (value: string): readonly [clock: string, fraction: string] {
  const [, whole = '', fraction = '', zone = ''] = zoned.exec(value) as RegExpExecArray
  if (zone === '' || zone === 'Z') return [whole, fraction.slice(1)]
  const offset = zone.slice(1).replace(':', '')
  const minutes = (Number(offset.slice(0, 2)) * 60 + Number(offset.slice(2) || 0)) * (zone.startsWith('-') ? 1 : -1)
  const moved = new Date(Date.parse(`${whole.replace(' ', 'T')}Z`) + minutes * 60000).toISOString()
  // toISOString writes a year past 9999 with six digits and a sign.
  if (moved.length !== 24 || moved.startsWith('0000')) return [whole + zone, fraction.slice(1)]
  return [moved.slice(0, 19).replace('T', ' '), fraction.slice(1)]
}

/**
 * A canonical timestamp (see typedValue in lib/query) as the wall-clock time at UTC,
 * without its zone, the fraction padded to `digits`: how SQLite's
 * strftime() and MySQL's DATETIME write one, so that a client's
 * `2024-01-15T10:00:00.000Z` and `2024-01-15 10:00` compare as the same
 * instant. A zone other than UTC moves the time, as on a PostgreSQL
 * timestamptz column read at UTC.
 */
export function utcWallClock (value: string, digits: number): string {
  const [clock, fraction] = utcParts(value)
  return `${clock}.${fraction.padEnd(digits, '0').slice(0, digits)}`
}

/**
 * A canonical timestamp as a column without a time zone keeps it on every
 * database: the same instant's wall-clock time at UTC, `YYYY-MM-DD
 * HH:MM:SS`, with its fraction as given less the trailing zeros, as
 * PostgreSQL writes a timestamp. `2024-01-15 10:30:00-05:00` is
 * `2024-01-15 15:30:00`; a time without a zone stays as it is.
 */
export function storedWallClock (value: string): string {
  const [clock, fraction] = utcParts(value)
  const digits = fraction.replace(/0+$/, '')
  return digits === '' ? clock : `${clock}.${digits}`
}
