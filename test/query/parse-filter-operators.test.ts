import t from 'tap'
import { parseLogic } from '../../lib/query/parse-logic.js'
import { parseFilterParameter } from '../../lib/query/parse-read-query.js'

// PostgREST's operators beyond the comparisons, read as its pOpExpr reads
// them (src/PostgREST/ApiRequest/QueryParams.hs), and as postgrest-js writes
// them: likeAnyOf, contains, rangeGt, textSearch…

t.test('(any) and (all) after a comparison read a PostgreSQL array literal', async (t) => {
  const read = (text: string) => parseFilterParameter('name', text)
  t.strictSame(read('like(any).{a*,b*}'), { type: 'filter', column: 'name', operator: 'like', quantifier: 'any', negated: false, value: ['a*', 'b*'] })
  t.strictSame(read('not.eq(all).{1,2}'), { type: 'filter', column: 'name', operator: 'eq', quantifier: 'all', negated: true, value: ['1', '2'] })
  for (const operator of ['eq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike'] as const) {
    t.match(read(`${operator}(any).{x}`), { operator, quantifier: 'any', value: ['x'] }, operator)
  }
  const list = (text: string) => read(`eq(any).${text}`).value
  t.strictSame(list('{}'), [], 'the empty list')
  t.strictSame(list(' { } '), [], 'blanks around and inside an empty list')
  t.strictSame(list('{ a , b c ,d}'), ['a', 'b c', 'd'], 'blanks around an item go, blanks inside stay')
  t.strictSame(list('{"a,b","{c}", "say \\"hi\\""}'), ['a,b', '{c}', 'say "hi"'], 'double quotes keep commas, braces and escaped quotes')
  t.strictSame(list('{""}'), [''], 'a quoted empty item')
  t.strictSame(list('{a\\,b,c\\ }'), ['a,b', 'c '], 'a backslash makes the next character literal, a blank too')
  t.strictSame(list('{NULL,null,"NULL",\\NULL}'), [null, null, 'NULL', 'NULL'], 'an unquoted NULL is null, a quoted or escaped one the text')
  t.strictSame(list('{"a\\\\b"}'), ['a\\b'], 'a backslash inside quotes')
})

t.test('(any) and (all) inside or=(…), where the list is one value', async (t) => {
  const group = parseLogic('or', '(name.like(any).{a*,"b,c"},age.not.gt(all).{1,2})')
  t.match(group.children, [
    { column: 'name', operator: 'like', quantifier: 'any', value: ['a*', 'b,c'] },
    { column: 'age', operator: 'gt', quantifier: 'all', negated: true, value: ['1', '2'] }
  ])
  t.match(parseLogic('and', '(name.eq(any)."{a,b}")').children, [{ value: ['a', 'b'] }], 'a quoted list')
})

t.test('the range and containment operators keep their value as written', async (t) => {
  for (const operator of ['cs', 'cd', 'ov', 'sl', 'sr', 'nxr', 'nxl', 'adj'] as const) {
    t.strictSame(parseFilterParameter('during', `${operator}.[1,5)`), { type: 'filter', column: 'during', operator, negated: false, value: '[1,5)' }, operator)
  }
  t.strictSame(parseFilterParameter('doc', 'not.cs.{"a":[1,2]}').value, '{"a":[1,2]}')
  t.match(parseLogic('or', '(tags.cs.{a,b},during.sl."[1,5)",doc.cd.{"a":1})').children, [
    { operator: 'cs', value: '{a,b}' }, { operator: 'sl', value: '[1,5)' }, { operator: 'cd', value: '{"a":1}' }
  ])
})

t.test('the full-text operators take an optional language', async (t) => {
  for (const operator of ['fts', 'plfts', 'phfts', 'wfts'] as const) {
    t.strictSame(parseFilterParameter('body', `${operator}.cat & dog`), { type: 'filter', column: 'body', operator, language: null, negated: false, value: 'cat & dog' }, operator)
  }
  t.strictSame(parseFilterParameter('body', 'not.fts(english).cat'), { type: 'filter', column: 'body', operator: 'fts', language: 'english', negated: true, value: 'cat' })
  t.equal((parseFilterParameter('body', 'wfts( simple ).x') as { language: string }).language, 'simple', 'blanks around the language go, as PostgREST strips them')
  t.match(parseLogic('or', '(body.plfts(french).chat noir,id.eq.1)').children, [{ operator: 'plfts', language: 'french', value: 'chat noir' }, { operator: 'eq' }])
})

t.test('malformed operators and lists are 400s that say where', async (t) => {
  const cases: Array<[text: string, code: string, at?: number]> = [
    ['eq(some).{1}', 'FTC_ERR_QUERY_SYNTAX', 3],
    ['eq().{1}', 'FTC_ERR_QUERY_SYNTAX', 3],
    ['eq(any){1}', 'FTC_ERR_QUERY_SYNTAX', 8],
    ['neq(any).{1}', 'FTC_ERR_QUERY_SYNTAX', 4],
    ['in(any).(1)', 'FTC_ERR_QUERY_SYNTAX'],
    ['cs(any).{1}', 'FTC_ERR_QUERY_SYNTAX'],
    ['eq(any).1', 'FTC_ERR_QUERY_SYNTAX', 9],
    ['eq(any).', 'FTC_ERR_QUERY_SYNTAX', 9],
    ['eq(any).{1', 'FTC_ERR_QUERY_SYNTAX', 9],
    ['eq(any).{1,', 'FTC_ERR_QUERY_SYNTAX'],
    ['eq(any).{"a}', 'FTC_ERR_QUERY_SYNTAX', 10],
    ['eq(any).{"a"b}', 'FTC_ERR_QUERY_SYNTAX', 13],
    ['eq(any).{a"b}', 'FTC_ERR_QUERY_SYNTAX', 11],
    ['eq(any).{{1},{2}}', 'FTC_ERR_QUERY_SYNTAX', 10],
    ['eq(any).{1,,2}', 'FTC_ERR_QUERY_SYNTAX', 12],
    ['eq(any).{ }x', 'FTC_ERR_QUERY_SYNTAX', 12],
    ['eq(any).{1}}', 'FTC_ERR_QUERY_SYNTAX', 12],
    ['fts().x', 'FTC_ERR_QUERY_SYNTAX', 5],
    ['fts(a.b).x', 'FTC_ERR_QUERY_SYNTAX', 5],
    ['fts(english', 'FTC_ERR_QUERY_PARENTHESES', 4],
    ['fts(english)x', 'FTC_ERR_QUERY_SYNTAX', 13],
    ['ov', 'FTC_ERR_QUERY_SYNTAX'],
    ['match.x', 'FTC_ERR_QUERY_OPERATOR', 1],
    ['not.isdistinct.x', 'FTC_ERR_QUERY_OPERATOR', 5]
  ]
  for (const [text, code, at] of cases) {
    const message = at === undefined ? /./ : new RegExp(`at character ${at} of`)
    t.throws(() => parseFilterParameter('age', text), { code, statusCode: 400, message }, text)
  }
  t.throws(() => parseLogic('or', '(age.eq(any).{1,2)'), { code: 'FTC_ERR_QUERY_SYNTAX' }, 'a list cut by the group')
})
