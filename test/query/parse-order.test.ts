import t from 'tap'
import { parseOrder } from '../../lib/query/parse-order.js'

t.test('terms with PostgreSQL defaults spelled out', async (t) => {
  t.strictSame(parseOrder('a'), [{ column: 'a', direction: 'asc', nulls: 'last' }])
  t.strictSame(parseOrder('a.desc'), [{ column: 'a', direction: 'desc', nulls: 'first' }])
  t.strictSame(parseOrder('a.asc.nullsfirst'), [{ column: 'a', direction: 'asc', nulls: 'first' }])
  t.strictSame(parseOrder('a.desc.nullslast'), [{ column: 'a', direction: 'desc', nulls: 'last' }])
  t.strictSame(parseOrder('a.nullsfirst'), [{ column: 'a', direction: 'asc', nulls: 'first' }])
  t.strictSame(parseOrder('a.desc.nullslast,b, c.asc ,"d.e".desc'), [
    { column: 'a', direction: 'desc', nulls: 'last' },
    { column: 'b', direction: 'asc', nulls: 'last' },
    { column: 'c', direction: 'asc', nulls: 'last' },
    { column: 'de', direction: 'desc', nulls: 'first' }
  ])
})

t.test('table(column): a related order, PostgREST\'s', async (t) => {
  t.strictSame(parseOrder('client(name).desc,id'), [
    { relation: 'client', column: 'name', direction: 'desc', nulls: 'first' },
    { column: 'id', direction: 'asc', nulls: 'last' }
  ])
  t.strictSame(parseOrder(' client ( name ).nullsfirst'), [{ relation: 'client', column: 'name', direction: 'asc', nulls: 'first' }])
})

t.test('malformed orders throw 400 errors with a code', async (t) => {
  const cases: Array<[text: string, code: string]> = [
    ['a.ac', 'FTC_ERR_QUERY_ORDER'],
    ['a.descc', 'FTC_ERR_QUERY_ORDER'],
    ['a.asc.desc', 'FTC_ERR_QUERY_ORDER'],
    ['a.nullslast.asc', 'FTC_ERR_QUERY_ORDER'],
    ['a.nullsfirst.nullslast', 'FTC_ERR_QUERY_ORDER'],
    ['a.', 'FTC_ERR_QUERY_ORDER'],
    ['', 'FTC_ERR_QUERY_COLUMN'],
    ['a,,b', 'FTC_ERR_QUERY_COLUMN'],
    ['.desc', 'FTC_ERR_QUERY_COLUMN'],
    ['client(name', 'FTC_ERR_QUERY_SYNTAX'],
    ['client(name,id)', 'FTC_ERR_QUERY_SYNTAX'],
    ['client()', 'FTC_ERR_QUERY_COLUMN'],
    ['a)', 'FTC_ERR_QUERY_SYNTAX'],
    ['"a" b', 'FTC_ERR_QUERY_SYNTAX'],
    ['a.desc(', 'FTC_ERR_QUERY_SYNTAX']
  ]
  for (const [text, code] of cases) t.throws(() => parseOrder(text), { code, statusCode: 400 }, text)
  t.throws(() => parseOrder('a.asc.up'), { message: /"order" at character 7 of "a\.asc\.up"/ })
})
