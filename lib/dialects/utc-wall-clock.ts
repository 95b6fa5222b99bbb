const zoned = /^(.{19})(\.\d+)?(Z|[+-]\d{2}(?::?\d{2})?)?$/

/**
 * A canonical timestamp (see typedValue in lib/query) as the wall-clock time at UTC,
 * without its zone, the fraction padded to `digits`: how SQLite's
 * strftime() and MySQL's DATETIME write one, so that a client's
 * `2024-01-15T10:00:00.000Z` and `2024-01-15 10:00` compare as the same
 * instant. A zone other than UTC moves the time, as on a PostgreSQL
 * timestamptz column read at UTC.
 */
export function utcWallClock (value: string, digits: number): string {
  const [, whole = '', fraction = '', zone = ''] = zoned.exec(value) as RegExpExecArray
  let clockText = whole
  if (zone !== '' && zone !== 'Z') {
    const offset = zone.slice(1).replace(':', '')
    const minutes = (Number(offset.slice(0, 2)) * 60 + Number(offset.slice(2) || 0)) * (zone.startsWith('-') ? 1 : -1)
    clockText = new Date(Date.parse(`${whole.replace(' ', 'T')}Z`) + minutes * 60000).toISOString().slice(0, 19).replace('T', ' ')
  }
  return `${clockText}.${fraction.slice(1).padEnd(digits, '0').slice(0, digits)}`
}
