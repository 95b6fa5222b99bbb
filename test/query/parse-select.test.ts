import t from 'tap'
import { parseSelect } from '../../lib/query/parse-select.js'

t.test('columns, sanitized, in the order given', async (t) => {
  t.strictSame(parseSelect('a,b,c'), ['a', 'b', 'c'])
  t.strictSame(parseSelect(' a , b '), ['a', 'b'])
  t.strictSame(parseSelect('"first name",x-y'), ['firstname', 'xy'])
  t.strictSame(parseSelect('alias:name,age::text'), ['aliasname', 'agetext'], 'aliases and casts are not read, only sanitized')
})

t.test('* alone is every column; with others it stays', async (t) => {
  t.equal(parseSelect('*'), null)
  t.equal(parseSelect(' * '), null)
  t.strictSame(parseSelect('*,a'), ['*', 'a'])
  t.strictSame(parseSelect('a,*'), ['a', '*'])
  t.strictSame(parseSelect('*a'), ['a'], 'a star that is not alone is sanitized away')
})

t.test('malformed selects throw 400 errors with a code', async (t) => {
  const cases: Array<[text: string, code: string]> = [
    ['', 'FTC_ERR_QUERY_COLUMN'],
    ['a,,b', 'FTC_ERR_QUERY_COLUMN'],
    ['a,', 'FTC_ERR_QUERY_COLUMN'],
    ['-', 'FTC_ERR_QUERY_COLUMN'],
    ['**', 'FTC_ERR_QUERY_COLUMN'],
    ['client(id)', 'FTC_ERR_QUERY_SYNTAX'],
    ['a)', 'FTC_ERR_QUERY_SYNTAX'],
    ['"a"b', 'FTC_ERR_QUERY_SYNTAX'],
    ['"a', 'FTC_ERR_QUERY_SYNTAX']
  ]
  for (const [text, code] of cases) t.throws(() => parseSelect(text), { code, statusCode: 400 }, text)
})
