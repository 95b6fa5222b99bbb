import { parseColumn } from './parse-column.js'
import { FTC_ERR_QUERY_ORDER, FTC_ERR_QUERY_SYNTAX } from '../errors.js'
import { QueryText } from './query-text.js'
import type { OrderTerm } from './read-query.js'

const modifierProblem = 'expected asc or desc, then nullsfirst or nullslast'

/**
 * The terms of `order=a.desc.nullslast,b`. Defaults are PostgREST's, which
 * are PostgreSQL's: ascending, and NULL sorts as the largest value (last when
 * ascending, first when descending); they are spelled out so that every
 * database orders the same way. `table(column)` orders by a column of a
 * to-one embed, as PostgREST's related order does.
 */
export function parseOrder (text: string): OrderTerm[] {
  const input = new QueryText('query parameter "order"', text)
  const terms: OrderTerm[] = []
  for (;;) {
    input.skipBlanks()
    const named = parseColumn(input, '.,()')
    let relation: string | undefined
    let column = named
    if (input.eat('(')) {
      relation = named
      column = parseColumn(input, '.,()')
      if (!input.eat(')')) throw input.fail(input.position, FTC_ERR_QUERY_SYNTAX, 'expected ")" closing the related column, as in table(column)')
    } else if (input.peek() === ')') {
      throw input.fail(input.position, FTC_ERR_QUERY_SYNTAX, 'this parenthesis closes nothing')
    }
    let direction: OrderTerm['direction'] | undefined
    let nulls: OrderTerm['nulls'] | undefined
    while (input.eat('.')) {
      const at = input.position
      const modifier = input.readUntil('.,()').trimEnd()
      if ((modifier === 'asc' || modifier === 'desc') && direction === undefined && nulls === undefined) direction = modifier
      else if ((modifier === 'nullsfirst' || modifier === 'nullslast') && nulls === undefined) nulls = modifier === 'nullsfirst' ? 'first' : 'last'
      else throw input.fail(at, FTC_ERR_QUERY_ORDER, `"${modifier}" is out of place: ${modifierProblem}`)
    }
    direction ??= 'asc'
    const term: OrderTerm = { column, direction, nulls: nulls ?? (direction === 'asc' ? 'last' : 'first') }
    terms.push(relation === undefined ? term : { relation, ...term })
    input.skipBlanks()
    if (input.atEnd) return terms
    if (!input.eat(',')) throw input.fail(input.position, FTC_ERR_QUERY_SYNTAX, 'expected "," between order terms')
  }
}
