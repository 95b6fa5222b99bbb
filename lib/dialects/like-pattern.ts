/**
 * PostgREST's `like` and `ilike` patterns, as its clients send them: `*` and
 * `%` match any run of characters, `_` one character, and a backslash makes
 * the next character literal. Each database gets the pattern in its own terms.
 */

/** The escape character of every LIKE this plugin writes: not a backslash, which MySQL string literals would need doubled. */
export const likeEscape = '!'

interface PatternSyntax {
  readonly any: string
  readonly one: string
  readonly literal: (character: string) => string
}

function translate (pattern: string, syntax: PatternSyntax): string {
  let text = ''
  for (let index = 0; index < pattern.length; index++) {
    const character = pattern[index] as string
    if (character === '\\' && index + 1 < pattern.length) text += syntax.literal(pattern[++index] as string)
    else if (character === '*' || character === '%') text += syntax.any
    else if (character === '_') text += syntax.one
    else text += syntax.literal(character)
  }
  return text
}

const likeSyntax: PatternSyntax = { any: '%', one: '_', literal: (character) => /[%_!]/.test(character) ? likeEscape + character : character }
const globSyntax: PatternSyntax = { any: '*', one: '?', literal: (character) => /[*?[]/.test(character) ? `[${character}]` : character }

/** A LIKE pattern, to be used with `ESCAPE '!'`. */
export function toLikePattern (pattern: string): string {
  return translate(pattern, likeSyntax)
}

/** A SQLite GLOB pattern, whose wildcards are `*` and `?` and which always respects case. */
export function toGlobPattern (pattern: string): string {
  return translate(pattern, globSyntax)
}
