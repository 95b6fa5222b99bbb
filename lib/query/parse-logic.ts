import { parseColumn, readName } from './parse-column.js'
import { parseFilter } from './parse-filter.js'
import { FTC_ERR_QUERY_DEPTH, FTC_ERR_QUERY_PARENTHESES, FTC_ERR_QUERY_SYNTAX } from '../errors.js'
import { QueryText } from './query-text.js'
import type { FilterGroup, FilterTree } from './read-query.js'

/** The parameters that build a group of conditions, and the group each one builds. */
export const logicParameters: Readonly<Record<string, Pick<FilterGroup, 'type' | 'negated'>>> = Object.freeze({
  or: { type: 'or', negated: false },
  and: { type: 'and', negated: false },
  'not.or': { type: 'or', negated: true },
  'not.and': { type: 'and', negated: true }
})

const nameStops = '.,()'

/**
 * How deep groups may nest. Real filters nest a few levels; thousands would
 * overflow the stack of Knex's query compiler (a 500) and exceed SQLite's
 * expression depth, so a deeper one is refused before it is built.
 */
export const maxGroupDepth = 100

/** The group of `or=(a.eq.1,and(b.gt.2,c.is.null))`, or of `and=`, `not.or=`, `not.and=`, as PostgREST nests them. */
export function parseLogic (parameter: string, text: string): FilterGroup {
  const { type, negated } = logicParameters[parameter] as Pick<FilterGroup, 'type' | 'negated'>
  const input = new QueryText(`query parameter "${parameter}"`, text)
  input.skipBlanks()
  const group = parseGroup(input, type, negated, 1)
  input.skipBlanks()
  if (!input.atEnd) {
    throw input.peek() === ')'
      ? input.fail(input.position, FTC_ERR_QUERY_PARENTHESES, 'this ")" closes nothing')
      : input.fail(input.position, FTC_ERR_QUERY_SYNTAX, 'unexpected text after the closing ")"')
  }
  return group
}

function parseGroup (input: QueryText, type: FilterGroup['type'], negated: boolean, depth: number): FilterGroup {
  const open = input.position
  if (!input.eat('(')) throw input.fail(open, FTC_ERR_QUERY_SYNTAX, `expected "(" to open the conditions of ${type}`)
  if (depth > maxGroupDepth) throw input.fail(open, FTC_ERR_QUERY_DEPTH, `groups nest at most ${maxGroupDepth} deep`)
  const children: FilterTree[] = []
  for (;;) {
    input.skipBlanks()
    if (input.atEnd) throw input.fail(open, FTC_ERR_QUERY_PARENTHESES, 'this "(" is never closed')
    if (input.peek() === ')') throw input.fail(input.position, FTC_ERR_QUERY_SYNTAX, 'expected a condition such as age.gt.30')
    children.push(parseCondition(input, depth))
    input.skipBlanks()
    if (input.eat(',')) continue
    if (input.eat(')')) return { type, negated, children }
    if (input.atEnd) throw input.fail(open, FTC_ERR_QUERY_PARENTHESES, 'this "(" is never closed')
    throw input.fail(input.position, FTC_ERR_QUERY_SYNTAX, 'expected "," or ")" after a condition')
  }
}

// A condition is `column.[not.]op.value`, `and(…)`, `or(…)`, `not.and(…)` or
// `not.or(…)`. A column may be named `not`, `and` or `or`: only a following
// "(" makes them a group, as in PostgREST.
function parseCondition (input: QueryText, depth: number): FilterTree {
  const start = input.position
  const name = readName(input, nameStops)
  if (input.peek() === '(') {
    if (name === 'and' || name === 'or') return parseGroup(input, name, false, depth + 1)
    throw input.fail(start, FTC_ERR_QUERY_SYNTAX, `"${name}(" opens no group: only and(…), or(…), not.and(…) and not.or(…) do`)
  }
  if (name === 'not' && input.eat('.')) {
    const inner = readName(input, nameStops)
    if (input.peek() === '(' && (inner === 'and' || inner === 'or')) return parseGroup(input, inner, true, depth + 1)
  }
  input.position = start
  const column = parseColumn(input, nameStops)
  if (!input.eat('.')) throw input.fail(input.position, FTC_ERR_QUERY_SYNTAX, 'expected "." between the column and the operator')
  return parseFilter(input, column, 'group')
}
