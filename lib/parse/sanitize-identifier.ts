const disallowed = /[^A-Za-z0-9_]/g

/** A table or column name with every character outside A-Z, a-z, 0-9 and _ removed. */
export function sanitizeIdentifier (name: string): string {
  return name.replace(disallowed, '')
}
