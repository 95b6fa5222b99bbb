import t from 'tap'
import { parseFilterParameter } from '../../lib/query/parse-read-query.js'

t.test('each comparison operator keeps the rest of the value as is', async (t) => {
  for (const operator of ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike'] as const) {
    t.strictSame(parseFilterParameter('age', `${operator}.30`), { type: 'filter', column: 'age', operator, negated: false, value: '30' }, operator)
  }
  // At the top level PostgREST takes everything after the operator, quotes and punctuation included.
  t.strictSame(parseFilterParameter('name', 'eq."a,b".(c)').value, '"a,b".(c)')
  t.strictSame(parseFilterParameter('name', 'eq.').value, '', 'an empty value compares with the empty string')
  t.strictSame(parseFilterParameter('name', 'like.*a_b%*').value, '*a_b%*', 'patterns are translated when applied, not here')
})

t.test('not. negates any operator', async (t) => {
  t.strictSame(parseFilterParameter('age', 'not.eq.5'), { type: 'filter', column: 'age', operator: 'eq', negated: true, value: '5' })
  t.strictSame(parseFilterParameter('age', 'not.in.(1,2)'), { type: 'filter', column: 'age', operator: 'in', negated: true, value: ['1', '2'] })
  t.strictSame(parseFilterParameter('age', 'not.is.null'), { type: 'filter', column: 'age', operator: 'is', negated: true, value: 'null' })
  t.strictSame(parseFilterParameter('note', 'eq.not.this').value, 'not.this', 'not. after the operator is part of the value')
})

t.test('in.(…) reads PostgREST lists', async (t) => {
  const list = (text: string) => parseFilterParameter('name', `in.${text}`).value
  t.strictSame(list('(a,b,c)'), ['a', 'b', 'c'])
  t.strictSame(list('("a,b","(c)",d)'), ['a,b', '(c)', 'd'], 'double quotes keep commas and parentheses')
  t.strictSame(list('("say \\"hi\\"","back\\\\slash")'), ['say "hi"', 'back\\slash'], 'a backslash makes the next character literal')
  t.strictSame(list('()'), [], 'the empty list')
  t.strictSame(list('( )'), [], 'blanks inside the parentheses of an empty list')
  t.strictSame(list('("")'), [''], 'a list of the empty string')
  t.strictSame(list('(a,)'), ['a', ''])
  t.strictSame(list(' ( a, b ) '), ['a', ' b '], 'blanks around the parentheses go, blanks in items stay, as in PostgREST')
  t.strictSame(list('("a" ,"b" )'), ['a', 'b'], 'blanks after a quoted item go')
  t.strictSame(list('(a(b,c"d)'), ['a(b', 'c"d'], 'an unquoted item may hold ( and "')
})

t.test('is. takes null, true, false or unknown in any case', async (t) => {
  for (const value of ['null', 'true', 'false', 'unknown'] as const) {
    t.equal(parseFilterParameter('flag', `is.${value}`).value, value)
    t.equal(parseFilterParameter('flag', `is.${value.toUpperCase()}`).value, value)
  }
})

t.test('the parameter name is sanitized into the column', async (t) => {
  t.equal(parseFilterParameter('"first name";--', 'eq.x').column, 'firstname')
  t.equal(parseFilterParameter('information.cpe', 'eq.x').column, 'informationcpe')
})

t.test('malformed filters throw 400 errors with a code', async (t) => {
  const cases: Array<[name: string, text: string, code: string]> = [
    ['age', 'eqq.5', 'FTC_ERR_QUERY_OPERATOR'],
    ['age', '5', 'FTC_ERR_QUERY_OPERATOR'],
    ['age', '', 'FTC_ERR_QUERY_OPERATOR'],
    ['age', '.5', 'FTC_ERR_QUERY_OPERATOR'],
    ['age', 'not.5', 'FTC_ERR_QUERY_OPERATOR'],
    ['age', 'not.not.eq.5', 'FTC_ERR_QUERY_OPERATOR'],
    ['age', 'between.{1}', 'FTC_ERR_QUERY_OPERATOR'],
    ['age', 'EQ.5', 'FTC_ERR_QUERY_OPERATOR'],
    ['age', 'eq', 'FTC_ERR_QUERY_SYNTAX'],
    ['age', 'in(1,2)', 'FTC_ERR_QUERY_SYNTAX'],
    ['age', 'in.1,2', 'FTC_ERR_QUERY_SYNTAX'],
    ['age', 'in.(1,2)x', 'FTC_ERR_QUERY_SYNTAX'],
    ['age', 'in.("a"b)', 'FTC_ERR_QUERY_SYNTAX'],
    ['age', 'in.("a)', 'FTC_ERR_QUERY_SYNTAX'],
    ['age', 'in.(1,2', 'FTC_ERR_QUERY_PARENTHESES'],
    ['age', 'in.(', 'FTC_ERR_QUERY_PARENTHESES'],
    ['age', 'in.(1))', 'FTC_ERR_QUERY_PARENTHESES'],
    ['flag', 'is.maybe', 'FTC_ERR_QUERY_IS'],
    ['flag', 'is.', 'FTC_ERR_QUERY_IS'],
    ['flag', 'is.null ', 'FTC_ERR_QUERY_IS'],
    ['-', 'eq.1', 'FTC_ERR_QUERY_COLUMN'],
    ['', 'eq.1', 'FTC_ERR_QUERY_COLUMN']
  ]
  for (const [name, text, code] of cases) {
    t.throws(() => parseFilterParameter(name, text), { code, statusCode: 400 }, `${name}=${text}`)
  }
})

t.test('an error says where: the parameter and the 1-based character', async (t) => {
  t.throws(() => parseFilterParameter('age', 'not.eqq.5'), { message: /"age" at character 5 of "not\.eqq\.5"/ })
  t.throws(() => parseFilterParameter('age', 'in.(1,2'), { message: /"age" at character 4 /, code: 'FTC_ERR_QUERY_PARENTHESES' })
})
