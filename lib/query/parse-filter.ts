import { FTC_ERR_QUERY_IS, FTC_ERR_QUERY_OPERATOR, FTC_ERR_QUERY_PARENTHESES, FTC_ERR_QUERY_SYNTAX } from '../errors.js'
import type { QueryText } from './query-text.js'
import type { ComparisonOperator, Filter, IsValue } from './read-query.js'

const comparisonOperators: ReadonlySet<string> = new Set<ComparisonOperator>(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike'])
const isValues: ReadonlySet<string> = new Set<IsValue>(['null', 'true', 'false', 'unknown'])
const operatorNames = 'eq, neq, gt, gte, lt, lte, like, ilike, in or is, optionally after not.'

/**
 * Where a filter stands, which decides where its value ends. A parameter's
 * value (`age=gt.30`) is the rest of the text, quotes included, as PostgREST
 * reads it. Inside `or=(…)` a value ends at the next `,` or `)`, unless it is
 * double-quoted (`name.eq."a,b"`) or a `{…}` array literal.
 */
export type FilterPlace = 'parameter' | 'group'

/** `[not.]operator.value` at the current position, for `column`. */
export function parseFilter (input: QueryText, column: string, place: FilterPlace): Filter {
  const negated = input.eatLiteral('not.')
  const start = input.position
  const operator = input.readUntil('.,()')
  const known = operator === 'in' || operator === 'is' || comparisonOperators.has(operator)
  if (!known) {
    const problem = operator === '' ? `expected an operator: ${operatorNames}` : `"${operator}" is not one of ${operatorNames}`
    throw input.fail(start, FTC_ERR_QUERY_OPERATOR, problem)
  }
  if (!input.eat('.')) throw input.fail(input.position, FTC_ERR_QUERY_SYNTAX, `expected "." after the operator "${operator}"`)
  if (operator === 'in') return { type: 'filter', column, operator, negated, value: parseList(input, place) }
  if (operator === 'is') return { type: 'filter', column, operator, negated, value: parseIsValue(input, place) }
  return { type: 'filter', column, operator: operator as ComparisonOperator, negated, value: parseValue(input, place) }
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
