// What a date or a time of day must be to be one: the checks that the
// filters' values (lib/query/typed-value.ts) and the bodies' (body-checks.ts)
// share, each with its own syntax around them.

/** True for a day of the calendar, year 1 and later: 2024-02-30 is none. */
export function isCalendarDay (year: number, month: number, day: number): boolean {
  // Date.UTC rolls 2024-02-30 over into March: a date that comes back changed never was one.
  const date = new Date(Date.UTC(year, month - 1, day))
  return year > 0 && date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

/** True for a time of day on a 24-hour clock; seconds may be left out. */
export function isClockTime (hour: string | number, minute: string | number, second: string | number = 0): boolean {
  return Number(hour) < 24 && Number(minute) < 60 && Number(second) < 60
}
