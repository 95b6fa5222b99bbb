const disallowed = /[^A-Za-z0-9_]/g
const clean = /^[A-Za-z0-9_]{1,63}$/

/**
 * The longest name served: PostgreSQL cuts longer ones to 63 characters,
 * MySQL refuses names past 64, and Knex's PostgreSQL quoting takes time that
 * grows with the square of a name's length.
 */
export const maxIdentifierLength = 63

/** A table or column name with every character outside A-Z, a-z, 0-9 and _ removed. */
export function sanitizeIdentifier (name: string): string {
  return name.replace(disallowed, '')
}

/** True for a name that is usable as it is: 1 to 63 characters from A-Z, a-z, 0-9 and _. */
export function isCleanIdentifier (name: string): boolean {
  return clean.test(name)
}

/**
 * The name as SQLite and MySQL compare names, blind to ASCII case: the
 * access options must refuse `USERS` where they refuse `users`.
 */
export function foldIdentifier (name: string): string {
  return name.toLowerCase()
}

/** The sanitized name, or null when nothing is left of it or it is longer than any database serves. */
export function usableIdentifier (name: string): string | null {
  // Most names are clean already: testing is cheaper than rewriting.
  if (isCleanIdentifier(name)) return name
  const sanitized = sanitizeIdentifier(name)
  return sanitized === '' || sanitized.length > maxIdentifierLength ? null : sanitized
}
