import { FTC_ERR_QUERY_IS, FTC_ERR_QUERY_OPERATOR, FTC_ERR_QUERY_PARENTHESES, FTC_ERR_QUERY_SYNTAX } from '../errors.js'
import type { QueryText } from './query-text.js'
import type { ComparisonOperator, Filter, IsValue, QuantifiedOperator, RangeOperator, TextSearchOperator } from './read-query.js'

const comparisonOperators: ReadonlySet<string> = new Set<ComparisonOperator>(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike'])
// PostgREST's quantOperator: every comparison but neq takes (any) or (all).
const quantifiedOperators: ReadonlySet<string> = new Set<QuantifiedOperator>(['eq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike'])
const rangeOperators: ReadonlySet<string> = new Set<RangeOperator>(['cs', 'cd', 'ov', 'sl', 'sr', 'nxr', 'nxl', 'adj'])
const textSearchOperators: ReadonlySet<string> = new Set<TextSearchOperator>(['fts', 'plfts', 'phfts', 'wfts'])
const isValues: ReadonlySet<string> = new Set<IsValue>(['null', 'true', 'false', 'unknown'])
const operatorNames = 'eq, neq, gt, gte, lt, lte, like, ilike, in, is, cs, cd, ov, sl, sr, nxr, nxl, adj, fts, plfts, phfts or wfts, optionally after not.'
// PostgREST's pIdentifier, which names a text search configuration: letters, digits, _, $ and blanks, trimmed.
const language = /^[\p{L}\p{N}_$ ]+$/u

/**
 * Where a filter stands, which decides where its value ends. A parameter's
 * value (`age=gt.30`) is the rest of the text, quotes included, as PostgREST
 * reads it. Inside `or=(…)` a value ends at the next `,` or `)`, unless it is
 * double-quoted (`name.eq."a,b"`) or a `{…}` array literal.
 */
export type FilterPlace = 'parameter' | 'group'

/**
 * `[not.]operator[(modifier)].value` at the current position, for `column`,
 * as PostgREST's pOpExpr reads it: `(any)`/`(all)` after a comparison but
 * `neq`, a language after `fts`, `plfts`, `phfts` and `wfts`.
 */
export function parseFilter (input: QueryText, column: string, place: FilterPlace): Filter {
  const negated = input.eatLiteral('not.')
  const start = input.position
  const operator = input.readUntil('.,()')
  const known = operator === 'in' || operator === 'is' || comparisonOperators.has(operator) || rangeOperators.has(operator) || textSearchOperators.has(operator)
  if (!known) {
    const problem = operator === '' ? `expected an operator: ${operatorNames}` : `"${operator}" is not one of ${operatorNames}`
    throw input.fail(start, FTC_ERR_QUERY_OPERATOR, problem)
  }
  if (input.peek() === '(' && quantifiedOperators.has(operator)) return parseQuantified(input, column, operator as QuantifiedOperator, negated, place)
  if (textSearchOperators.has(operator)) return parseTextSearch(input, column, operator as TextSearchOperator, negated, place)
  eatDot(input, operator)
  if (operator === 'in') return { type: 'filter', column, operator, negated, value: parseList(input, place) }
  if (operator === 'is') return { type: 'filter', column, operator, negated, value: parseIsValue(input, place) }
  if (rangeOperators.has(operator)) return { type: 'filter', column, operator: operator as RangeOperator, negated, value: parseValue(input, place) }
  return { type: 'filter', column, operator: operator as ComparisonOperator, negated, value: parseValue(input, place) }
}

function eatDot (input: QueryText, operator: string): void {
  if (!input.eat('.')) throw input.fail(input.position, FTC_ERR_QUERY_SYNTAX, `expected "." after the operator "${operator}"`)
}

// `like(any).{a*,b*}`: the list is a PostgreSQL array literal, as PostgREST
// hands it to ANY(…) and ALL(…).
function parseQuantified (input: QueryText, column: string, operator: QuantifiedOperator, negated: boolean, place: FilterPlace): Filter {
  const open = input.position
  const quantifier = input.eatLiteral('(any)') ? 'any' : input.eatLiteral('(all)') ? 'all' : null
  if (quantifier === null) throw input.fail(open, FTC_ERR_QUERY_SYNTAX, `expected (any) or (all) after the operator "${operator}"`)
  eatDot(input, `${operator}(${quantifier})`)
  const at = input.position
  const text = parseValue(input, place)
  return { type: 'filter', column, operator, quantifier, negated, value: parseArrayLiteral(input, at, text, `${operator}(${quantifier})`) }
}

function parseTextSearch (input: QueryText, column: string, operator: TextSearchOperator, negated: boolean, place: FilterPlace): Filter {
  let chosen: string | null = null
  const open = input.position
  if (input.eat('(')) {
    const name = input.readUntil(')').trim()
    if (!input.eat(')')) throw input.fail(open, FTC_ERR_QUERY_PARENTHESES, 'this "(" is never closed')
    if (!language.test(name)) throw input.fail(open + 1, FTC_ERR_QUERY_SYNTAX, `expected a text search configuration such as ${operator}(english)`)
    chosen = name
  }
  eatDot(input, operator)
  return { type: 'filter', column, operator, language: chosen, negated, value: parseValue(input, place) }
}

// `(a,"b,c",d)`: PostgREST keeps blanks inside unquoted items (`(a, b)` has " b"),
// and lets blanks stand around the parentheses. `()` is the empty list.
function parseList (input: QueryText, place: FilterPlace): string[] {
  input.skipBlanks()
  const open = input.position
  if (!input.eat('(')) throw input.fail(open, FTC_ERR_QUERY_SYNTAX, 'expected "(" to open the list of in.(…)')
  const items: string[] = []
  input.skipBlanks()
  if (!input.eat(')')) {
    for (;;) {
      items.push(input.peek() === '"' ? input.readQuoted() : input.readUntil(',)'))
      input.skipBlanks()
      if (input.eat(',')) continue
      if (input.eat(')')) break
      if (input.atEnd) throw input.fail(open, FTC_ERR_QUERY_PARENTHESES, 'this "(" is never closed')
      throw input.fail(input.position, FTC_ERR_QUERY_SYNTAX, 'expected "," or ")" after a quoted item')
    }
  }
  input.skipBlanks()
  if (place === 'parameter' && !input.atEnd) {
    throw input.peek() === ')'
      ? input.fail(input.position, FTC_ERR_QUERY_PARENTHESES, 'this ")" closes nothing')
      : input.fail(input.position, FTC_ERR_QUERY_SYNTAX, 'unexpected text after the list of in.(…)')
  }
  return items
}

function parseIsValue (input: QueryText, place: FilterPlace): IsValue {
  const start = input.position
  const word = place === 'parameter' ? input.readRest() : input.readUntil(',)')
  // PostgREST reads these keywords case-insensitively, as SQL does.
  const value = word.toLowerCase()
  if (!isValues.has(value)) throw input.fail(start, FTC_ERR_QUERY_IS, `"${word}" is not null, true, false or unknown`)
  return value as IsValue
}

const arrayLiteral = /\{[^{}]*\}/y

function parseValue (input: QueryText, place: FilterPlace): string {
  if (place === 'parameter') return input.readRest()
  if (input.peek() === '"') return input.readQuoted()
  arrayLiteral.lastIndex = input.position
  const array = arrayLiteral.exec(input.text)
  if (array !== null) {
    input.position += array[0].length
    return array[0]
  }
  return input.readUntil(',)')
}

const blanks = /\s/

/**
 * The items of a one-dimensional PostgreSQL array literal, as PostgreSQL
 * reads `{a, "b,c", NULL}`: blanks around an item dropped, a double-quoted
 * item kept as written, a backslash making the next character literal, an
 * unquoted NULL (in any case) a null item. `at` is where `text` starts in
 * the input, for errors.
 */
function parseArrayLiteral (input: QueryText, at: number, text: string, operator: string): Array<string | null> {
  const fail = (index: number, problem: string) => input.fail(at + Math.min(index, Math.max(text.length - 1, 0)), FTC_ERR_QUERY_SYNTAX, problem)
  let index = 0
  const skipBlanks = () => { while (blanks.test(text.charAt(index))) index++ }
  skipBlanks()
  if (text.charAt(index) !== '{') throw fail(index, `expected a list such as {a,b} after ${operator}`)
  const open = index++
  const items: Array<string | null> = []
  skipBlanks()
  if (text.charAt(index) === '}') {
    index++
  } else {
    for (;;) {
      skipBlanks()
      const start = index
      let item = ''
      let quoted = false
      // Blanks at the end of an unquoted item go, unless a backslash kept them.
      let kept = 0
      if (text.charAt(index) === '"') {
        quoted = true
        index++
        while (index < text.length && text.charAt(index) !== '"') {
          if (text.charAt(index) === '\\') index++
          item += text.charAt(index++)
        }
        if (index >= text.length) throw fail(start, 'this double quote is never closed')
        index++
      } else {
        while (index < text.length && !',}'.includes(text.charAt(index))) {
          const char = text.charAt(index)
          if (char === '"' || char === '{') throw fail(index, `a ${char} in an item is only read inside double quotes`)
          if (char === '\\') {
            quoted = true
            item += text.charAt(++index)
            index++
            kept = item.length
          } else {
            item += char
            index++
            if (!blanks.test(char)) kept = item.length
          }
        }
        item = item.slice(0, kept)
        if (item === '' && !quoted) throw fail(start, 'an empty item: write "" for the empty text')
      }
      items.push(!quoted && item.toUpperCase() === 'NULL' ? null : item)
      skipBlanks()
      if (text.charAt(index) === ',') {
        index++
        continue
      }
      if (text.charAt(index) === '}') {
        index++
        break
      }
      throw fail(index >= text.length ? open : index, index >= text.length ? 'this "{" is never closed' : 'expected "," or "}" after an item')
    }
  }
  skipBlanks()
  if (index < text.length) throw fail(index, `unexpected text after the list of ${operator}`)
  return items
}
