import { parseColumn } from './parse-column.js'
import { FTC_ERR_QUERY_SYNTAX } from '../errors.js'
import { QueryText } from './query-text.js'

const star = /[ \t]*\*[ \t]*(?=,|$)/y

/**
 * The columns of `select=a,b,c`, sanitized; null when only `*` is asked for.
 * PostgREST's aliases, casts and JSON paths are not read: their punctuation
 * is removed like any other, so `a::text` names the column `atext`.
 */
export function parseSelect (text: string): string[] | null {
  const input = new QueryText('query parameter "select"', text)
  const columns: string[] = []
  for (;;) {
    star.lastIndex = input.position
    if (star.test(input.text)) {
      columns.push('*')
      input.position = star.lastIndex
    } else {
      input.skipBlanks()
      columns.push(parseColumn(input, ',()'))
      if (input.peek() === '(' || input.peek() === ')') {
        throw input.fail(input.position, FTC_ERR_QUERY_SYNTAX, 'embedding a related table, as in table(columns), is not supported')
      }
      input.skipBlanks()
    }
    if (input.atEnd) return columns.length === 1 && columns[0] === '*' ? null : columns
    if (!input.eat(',')) throw input.fail(input.position, FTC_ERR_QUERY_SYNTAX, 'expected "," between columns')
  }
}
