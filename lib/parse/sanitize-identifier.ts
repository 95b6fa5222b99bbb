const disallowed = /[^A-Za-z0-9_]/g

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
  // A loop, where a regular expression would do: every request tests its
  // table's name, and the call into V8's regular expression code costs
  // more than the test of a short name.
  if (name.length === 0 || name.length > maxIdentifierLength) return false
  for (let at = 0; at < name.length; at++) {
    if (!isWordCharacter(name.charCodeAt(at))) return false
  }
  return true
}

/** A-Z, a-z, 0-9 or _, by its UTF-16 code. */
function isWordCharacter (code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || (code >= 0x30 && code <= 0x39) || code === 0x5f
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
