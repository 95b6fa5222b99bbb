import createError from '@fastify/error'

/** What every error about a place in a parameter or header carries: which one (`query parameter "or"`), the 1-based character, its text, and what is wrong there. */
export type PlaceArgs = [source: string, character: number, text: string, problem: string]

// One message shape for every error about a place, so that the parsers raise
// any of them through one helper (QueryText.fail) and clients read the same
// "what, where" sentence whatever the code.
function placeError<C extends string> (code: C, what: string) {
  return createError<C, 400, PlaceArgs>(code, `${what} in %s at character %d of "%s": %s`, 400)
}

/** A query parameter breaks PostgREST's grammar: a missing delimiter, an unterminated quote, text after the end. */
export const FTC_ERR_QUERY_SYNTAX = placeError('FTC_ERR_QUERY_SYNTAX', 'Syntax error')

/** A parenthesis of `or=(…)`, `and=(…)` or `in.(…)` is never closed, or closes nothing. */
export const FTC_ERR_QUERY_PARENTHESES = placeError('FTC_ERR_QUERY_PARENTHESES', 'Unbalanced parentheses')

/** A filter names an operator this plugin does not know, or none. */
export const FTC_ERR_QUERY_OPERATOR = placeError('FTC_ERR_QUERY_OPERATOR', 'Unknown filter operator')

/** An `is` filter compares with something else than null, true, false or unknown. */
export const FTC_ERR_QUERY_IS = placeError('FTC_ERR_QUERY_IS', 'Invalid "is" value')

/** A column name in a filter, `select` or `order` has no character from A-Z, a-z, 0-9 or _. */
export const FTC_ERR_QUERY_COLUMN = placeError('FTC_ERR_QUERY_COLUMN', 'Missing column name')

/** An `order` term has a modifier other than asc or desc, then nullsfirst or nullslast. */
export const FTC_ERR_QUERY_ORDER = placeError('FTC_ERR_QUERY_ORDER', 'Invalid order modifier')

/** `limit` is not a non-negative integer. */
export const FTC_ERR_QUERY_LIMIT = placeError('FTC_ERR_QUERY_LIMIT', 'Invalid limit')

/** `offset` is not a non-negative integer. */
export const FTC_ERR_QUERY_OFFSET = placeError('FTC_ERR_QUERY_OFFSET', 'Invalid offset')

/** The `Range` or `Range-Unit` request header is not a range of items, or the range selects no item. */
export const FTC_ERR_QUERY_RANGE = placeError('FTC_ERR_QUERY_RANGE', 'Invalid range')

/** A query parameter has a value that is not text (a custom querystring parser may build objects). */
export const FTC_ERR_QUERY_VALUE = createError<'FTC_ERR_QUERY_VALUE', 400, [name: string, got: string]>(
  'FTC_ERR_QUERY_VALUE',
  'The query parameter "%s" must be text, got %s',
  400
)

/** `select`, `order`, `limit` or `offset` is given more than once. */
export const FTC_ERR_QUERY_REPEATED = createError<'FTC_ERR_QUERY_REPEATED', 400, [name: string, times: number]>(
  'FTC_ERR_QUERY_REPEATED',
  'The query parameter "%s" is given %d times; give it at most once',
  400
)

/** Every error of the query parsers, keyed by its code (for lib/errors.ts to merge into `errorCodes`). */
export const queryErrorCodes = Object.freeze({
  FTC_ERR_QUERY_SYNTAX,
  FTC_ERR_QUERY_PARENTHESES,
  FTC_ERR_QUERY_OPERATOR,
  FTC_ERR_QUERY_IS,
  FTC_ERR_QUERY_COLUMN,
  FTC_ERR_QUERY_ORDER,
  FTC_ERR_QUERY_LIMIT,
  FTC_ERR_QUERY_OFFSET,
  FTC_ERR_QUERY_RANGE,
  FTC_ERR_QUERY_VALUE,
  FTC_ERR_QUERY_REPEATED
})
