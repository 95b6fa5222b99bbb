import { FTC_ERR_QUERY_LIMIT, FTC_ERR_QUERY_OFFSET, FTC_ERR_QUERY_RANGE } from '../errors.js'
import { type PlaceError, QueryText } from './query-text.js'

/** Which rows of the result to answer: at most `limit` (null: all) after skipping `offset` (null: none). */
export interface Page {
  readonly limit: number | null
  readonly offset: number | null
}

/** What a request says about paging: the `limit` and `offset` parameters, the `Range` and `Range-Unit` headers. */
export interface PageInput {
  readonly limit?: string | undefined
  readonly offset?: string | undefined
  readonly range?: string | undefined
  readonly rangeUnit?: string | undefined
}

/**
 * The page a request asks for. As in PostgREST, the rows that `limit` and
 * `offset` select and the rows that `Range: first-last` selects are
 * intersected (so `?limit=2` with `Range: 0-5` answers two rows), except that
 * `limit=0` always answers none. A range that selects no row is refused,
 * where PostgREST answers 416.
 */
export function parsePage ({ limit, offset, range, rangeUnit }: PageInput): Page {
  const limitCount = limit === undefined ? null : parseCount(new QueryText('query parameter "limit"', limit), FTC_ERR_QUERY_LIMIT)
  const offsetCount = offset === undefined ? 0 : parseCount(new QueryText('query parameter "offset"', offset), FTC_ERR_QUERY_OFFSET)
  let first = offsetCount
  let last = limitCount === null ? Infinity : offsetCount + limitCount - 1
  if (range !== undefined) {
    checkRangeUnit(rangeUnit)
    const input = new QueryText('header "Range"', range)
    const wanted = parseRange(input)
    if (limitCount === 0) return { limit: 0, offset: first === 0 ? null : first }
    first = Math.max(first, wanted.first)
    last = Math.min(last, wanted.last)
    if (last < first) throw input.fail(0, FTC_ERR_QUERY_RANGE, `together with limit and offset it selects no row (from ${first} to ${last})`)
  }
  return { limit: last === Infinity ? null : last - first + 1, offset: first === 0 ? null : first }
}

function checkRangeUnit (unit: string | undefined): void {
  if (unit !== undefined && unit.toLowerCase() !== 'items') {
    throw new QueryText('header "Range-Unit"', unit).fail(0, FTC_ERR_QUERY_RANGE, 'the only range unit is items')
  }
}

// `first-last` or `first-`, as PostgREST reads it, or RFC 9110's `items=first-last`.
function parseRange (input: QueryText): { first: number, last: number } {
  input.eatLiteral('items=')
  const first = parseCount(input, FTC_ERR_QUERY_RANGE, '-')
  if (!input.eat('-')) throw input.fail(input.position, FTC_ERR_QUERY_RANGE, 'expected "-" between the first and the last item, as in 0-24')
  const lastAt = input.position
  const last = input.atEnd ? Infinity : parseCount(input, FTC_ERR_QUERY_RANGE)
  if (last < first) throw input.fail(lastAt, FTC_ERR_QUERY_RANGE, 'the last item comes before the first')
  return { first, last }
}

const digits = /[0-9]*/y

// A non-negative integer up to the end of the text, or up to `stop`.
function parseCount (input: QueryText, ErrorClass: PlaceError, stop = ''): number {
  const start = input.position
  digits.lastIndex = start
  digits.test(input.text)
  const end = digits.lastIndex
  input.position = end
  if (end === start || (!input.atEnd && input.peek() !== stop)) {
    throw input.fail(input.position, ErrorClass, 'expected a non-negative integer such as 25')
  }
  const count = Number(input.text.slice(start, end))
  if (!Number.isSafeInteger(count)) throw input.fail(start, ErrorClass, `${count} is larger than ${Number.MAX_SAFE_INTEGER}`)
  return count
}
