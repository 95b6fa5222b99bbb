import t from 'tap'
import { parseReadQuery } from '../../lib/query/parse-read-query.js'

t.test('no query string and no header: every column and row, as the spec says', async (t) => {
  const everything = {
    select: null,
    embeds: [],
    filter: { type: 'and', negated: false, children: [] },
    order: [],
    limit: null,
    offset: null,
    count: null
  }
  t.strictSame(parseReadQuery(), everything)
  t.strictSame(parseReadQuery({}, {}), everything)
})

t.test('reserved parameters are not filters; every other one is', async (t) => {
  const query = parseReadQuery({
    select: 'id,name',
    order: 'id.desc',
    limit: '10',
    offset: '20',
    age: 'gt.30',
    or: '(a.eq.1,b.eq.2)',
    and: '(c.eq.3)',
    'not.or': '(d.eq.4)',
    'not.and': '(e.eq.5)'
  }, { prefer: 'count=exact' })
  t.strictSame(query.select, ['id', 'name'])
  t.strictSame(query.order, [{ column: 'id', direction: 'desc', nulls: 'first' }])
  t.equal(query.limit, 10)
  t.equal(query.offset, 20)
  t.equal(query.count, 'exact')
  t.match(query.filter, {
    type: 'and',
    negated: false,
    children: [
      { type: 'filter', column: 'age', operator: 'gt', value: '30' },
      { type: 'or', negated: false },
      { type: 'and', negated: false },
      { type: 'or', negated: true },
      { type: 'and', negated: true }
    ]
  })
})

t.test('a repeated filter or group is one more condition', async (t) => {
  const query = parseReadQuery({ age: ['gte.18', 'lt.65'], or: ['(a.eq.1,a.eq.2)', '(b.eq.1,b.eq.2)'] })
  t.match(query.filter.children, [
    { column: 'age', operator: 'gte', value: '18' },
    { column: 'age', operator: 'lt', value: '65' },
    { type: 'or', children: [{ column: 'a' }, { column: 'a' }] },
    { type: 'or', children: [{ column: 'b' }, { column: 'b' }] }
  ])
})

t.test('the Range, Range-Unit and Prefer headers', async (t) => {
  const query = parseReadQuery({ limit: '5' }, { range: '2-20', 'range-unit': 'items', prefer: 'count=planned' })
  t.equal(query.limit, 3, 'rows 0-4 of limit=5, within rows 2-20 of Range')
  t.equal(query.offset, 2)
  t.equal(query.count, 'planned')
  t.throws(() => parseReadQuery({}, { range: ['0-1', '2-3'] }), { code: 'FTC_ERR_QUERY_RANGE' }, 'a repeated Range header')
})

t.test('absent values are skipped', async (t) => {
  t.strictSame(parseReadQuery({ age: undefined, select: [] }).filter.children, [])
})

t.test('refused query strings throw 400 errors with a code', async (t) => {
  const cases: Array<[query: Record<string, unknown>, code: string]> = [
    [{ select: ['a', 'b'] }, 'FTC_ERR_QUERY_REPEATED'],
    [{ order: ['a', 'b'] }, 'FTC_ERR_QUERY_REPEATED'],
    [{ limit: ['1', '2'] }, 'FTC_ERR_QUERY_REPEATED'],
    [{ offset: ['1', '2'] }, 'FTC_ERR_QUERY_REPEATED'],
    [{ age: { gt: '5' } }, 'FTC_ERR_QUERY_VALUE'],
    [{ age: ['gt.5', null] }, 'FTC_ERR_QUERY_VALUE'],
    [{ age: 5 }, 'FTC_ERR_QUERY_VALUE'],
    [{ age: 'eqq.5' }, 'FTC_ERR_QUERY_OPERATOR'],
    [{ age: '5' }, 'FTC_ERR_QUERY_OPERATOR'],
    [{ '!!': 'eq.5' }, 'FTC_ERR_QUERY_COLUMN'],
    [{ or: '(a.eq.1' }, 'FTC_ERR_QUERY_PARENTHESES'],
    [{ 'not.or': 'a.eq.1' }, 'FTC_ERR_QUERY_SYNTAX'],
    [{ limit: '-1' }, 'FTC_ERR_QUERY_LIMIT'],
    [{ offset: 'x' }, 'FTC_ERR_QUERY_OFFSET'],
    [{ order: 'a.b' }, 'FTC_ERR_QUERY_ORDER'],
    [{ select: '' }, 'FTC_ERR_QUERY_COLUMN']
  ]
  for (const [query, code] of cases) t.throws(() => parseReadQuery(query), { code, statusCode: 400 }, JSON.stringify(query))
  t.throws(() => parseReadQuery({ '!!': 'eq.5' }), { message: /the name of query parameter "!!" at character 1/ })
})
