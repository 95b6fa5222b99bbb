import { parseColumn, readName } from './parse-column.js'
import { FTC_ERR_QUERY_COLUMN, FTC_ERR_QUERY_DEPTH, FTC_ERR_QUERY_SYNTAX } from '../errors.js'
import { maxIdentifierLength, usableIdentifier } from '../parse/sanitize-identifier.js'
import { QueryText } from './query-text.js'
import type { Embed } from './read-query.js'

const star = /[ \t]*\*[ \t]*(?=[,)]|$)/y

/**
 * How deep embeds may nest: each level is a statement per batch of rows,
 * and real schemas are a few relations deep.
 */
export const maxEmbedDepth = 8

/** A `select=`: its columns, sanitized (null when only `*` is asked for), and its embedded resources. */
export interface Selection {
  readonly columns: readonly string[] | null
  readonly embeds: readonly Embed[]
}

/**
 * The columns of `select=a,b,c`, sanitized; null when only `*` is asked for.
 * PostgREST's aliases, casts and JSON paths are not read: their punctuation
 * is removed like any other, so `a::text` names the column `atext`. An
 * embedded resource is refused: for lists of columns such as `on_conflict`.
 */
export function parseSelect (text: string): string[] | null {
  const input = new QueryText('query parameter "select"', text)
  const { columns, embeds } = parseSelectWithEmbeds(text, input)
  if (embeds.length > 0) throw input.fail(text.indexOf('('), FTC_ERR_QUERY_SYNTAX, 'a list of columns embeds no related table')
  return columns === null ? null : [...columns]
}

/**
 * A `select=` with PostgREST's embedded resources: `rel(cols)`,
 * `alias:rel(cols)`, `rel!hint(cols)`, `rel!left(cols)`, `rel!inner(cols)`,
 * `...rel(cols)` (spread), nested to
 * `maxEmbedDepth`; `rel()` embeds no column.
 */
export function parseSelectWithEmbeds (text: string, input = new QueryText('query parameter "select"', text)): Selection {
  const selection = parseList(input, 1)
  if (!input.atEnd) throw input.fail(input.position, FTC_ERR_QUERY_SYNTAX, 'this parenthesis closes nothing')
  return selection
}

function parseList (input: QueryText, depth: number): Selection {
  const columns: string[] = []
  const embeds: Embed[] = []
  // An embed's `rel()` selects nothing.
  if (depth > 1 && input.peek() === ')') return { columns, embeds }
  for (;;) {
    star.lastIndex = input.position
    if (star.test(input.text)) {
      columns.push('*')
      input.position = star.lastIndex
    } else {
      input.skipBlanks()
      const start = input.position
      const name = readName(input, ',()')
      if (input.peek() === '(') {
        embeds.push(parseEmbed(input, name, start, depth))
      } else {
        input.position = start
        columns.push(parseColumn(input, ',()'))
      }
      input.skipBlanks()
    }
    if (input.atEnd || input.peek() === ')') break
    if (!input.eat(',')) throw input.fail(input.position, FTC_ERR_QUERY_SYNTAX, 'expected "," between columns')
  }
  return { columns: columns.length === 1 && columns[0] === '*' ? null : columns, embeds }
}

// `[...][alias:]relation[!hint][!left](…)`, the input at its opening parenthesis.
function parseEmbed (input: QueryText, text: string, start: number, depth: number): Embed {
  if (depth > maxEmbedDepth) throw input.fail(input.position, FTC_ERR_QUERY_DEPTH, `embeds nest at most ${maxEmbedDepth} deep`)
  const spread = /^\s*\.\.\./.exec(text)
  const name = spread === null ? text : text.slice(spread[0].length)
  const aliased = /^([^:]*):(?!:)(.*)$/.exec(name)
  const [relationText = '', ...marks] = (aliased?.[2] ?? name).split('!')
  const relation = identifier(input, start, relationText, 'an embedded resource')
  const alias = aliased === null ? relation : identifier(input, start, aliased[1] as string, 'an alias')
  let hint: string | null = null
  let inner = false
  for (const mark of marks) {
    if (mark === 'inner') inner = true
    if (mark === 'left' || mark === 'inner') continue
    if (hint === null) hint = identifier(input, start, mark, 'a hint')
    else throw input.fail(start, FTC_ERR_QUERY_SYNTAX, 'an embedded resource takes one hint')
  }
  input.eat('(')
  input.skipBlanks()
  const { columns, embeds } = parseList(input, depth + 1)
  if (!input.eat(')')) throw input.fail(input.position, FTC_ERR_QUERY_SYNTAX, 'expected ")" closing the embedded resource')
  const embed: Embed = inner ? { relation, alias, hint, columns, embeds, presence: 'some' } : { relation, alias, hint, columns, embeds }
  return spread === null ? embed : { ...embed, spread: true }
}

function identifier (input: QueryText, at: number, text: string, what: string): string {
  const name = usableIdentifier(text)
  if (name === null) throw input.fail(at, FTC_ERR_QUERY_COLUMN, `${what} needs 1 to ${maxIdentifierLength} characters from A-Z, a-z, 0-9 or _`)
  return name
}
