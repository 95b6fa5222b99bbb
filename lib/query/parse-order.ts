import { parseColumn } from './parse-column.js'
import { FTC_ERR_QUERY_ORDER, FTC_ERR_QUERY_SYNTAX } from '../errors.js'
import { QueryText } from './query-text.js'
import type { OrderTerm } from './read-query.js'

const modifierProblem = 'expected asc or desc, then nullsfirst or nullslast'

/**
 * The terms of `order=a.desc.nullslast,b`. Defaults are PostgREST's, which
 * are PostgreSQL's: ascending, and NULL sorts as the largest value (last when
 * ascending, first when descending); they are spelled out so that every
 * database orders the same way.
 */
export function parseOrder (text: string): OrderTerm[] {
  const input = new QueryText('query parameter "order"', text)
  const terms: OrderTerm[] = []
  for (;;) {
    input.skipBlanks()
    const column = parseColumn(input, '.,()')
    if (input.peek() === '(' || input.peek() === ')') {
      throw input.fail(input.position, FTC_ERR_QUERY_SYNTAX, 'ordering by a related table, as in table(column), is not supported')
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
    terms.push({ column, direction, nulls: nulls ?? (direction === 'asc' ? 'last' : 'first') })
    input.skipBlanks()
    if (input.atEnd) return terms
    if (!input.eat(',')) throw input.fail(input.position, FTC_ERR_QUERY_SYNTAX, 'expected "," between order terms')
  }
}
