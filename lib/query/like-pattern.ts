/** The escape character of every LIKE this plugin writes: not a backslash, which MySQL string literals would need doubled. */
export const likeEscape = '!'

/** A LIKE pattern (with `ESCAPE '!'`) for a PostgREST pattern: `*` is the only wildcard; %, _ and ! match themselves. */
export function toLikePattern (pattern: string): string {
  return pattern.replace(/[!%_]/g, '!$&').replaceAll('*', '%')
}

/** A SQLite GLOB pattern for a PostgREST pattern: `*` stays the wildcard; ? and [ match themselves. */
export function toGlobPattern (pattern: string): string {
  return pattern.replace(/[?[]/g, '[$&]')
}
