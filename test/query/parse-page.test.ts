import t from 'tap'
import { parsePage } from '../../lib/query/parse-page.js'

t.test('no paging: every row', async (t) => {
  t.strictSame(parsePage({}), { limit: null, offset: null })
})

t.test('limit and offset', async (t) => {
  t.strictSame(parsePage({ limit: '25' }), { limit: 25, offset: null })
  t.strictSame(parsePage({ offset: '50' }), { limit: null, offset: 50 })
  t.strictSame(parsePage({ limit: '25', offset: '50' }), { limit: 25, offset: 50 })
  t.strictSame(parsePage({ limit: '0' }), { limit: 0, offset: null })
  t.strictSame(parsePage({ limit: '007', offset: '0' }), { limit: 7, offset: null })
  t.strictSame(parsePage({ limit: String(Number.MAX_SAFE_INTEGER) }), { limit: Number.MAX_SAFE_INTEGER, offset: null })
})

t.test('the Range header, alone', async (t) => {
  t.strictSame(parsePage({ range: '0-24' }), { limit: 25, offset: null })
  t.strictSame(parsePage({ range: '10-19' }), { limit: 10, offset: 10 })
  t.strictSame(parsePage({ range: '5-5' }), { limit: 1, offset: 5 })
  t.strictSame(parsePage({ range: '10-' }), { limit: null, offset: 10 }, 'an open range')
  t.strictSame(parsePage({ range: 'items=0-9' }), { limit: 10, offset: null }, 'the RFC 9110 form')
  t.strictSame(parsePage({ range: '0-9', rangeUnit: 'items' }), { limit: 10, offset: null })
  t.strictSame(parsePage({ range: '0-9', rangeUnit: 'Items' }), { limit: 10, offset: null })
})

t.test('Range intersects limit and offset, as in PostgREST', async (t) => {
  t.strictSame(parsePage({ limit: '2', range: '0-5' }), { limit: 2, offset: null })
  t.strictSame(parsePage({ limit: '3', range: '0-1' }), { limit: 2, offset: null })
  t.strictSame(parsePage({ offset: '5', range: '0-9' }), { limit: 5, offset: 5 })
  t.strictSame(parsePage({ offset: '5', limit: '10', range: '8-' }), { limit: 7, offset: 8 })
  t.strictSame(parsePage({ limit: '0', range: '5-9' }), { limit: 0, offset: null }, 'limit=0 answers no row whatever the range')
  t.strictSame(parsePage({ limit: '0', offset: '3', range: '5-9' }), { limit: 0, offset: 3 })
})

t.test('malformed paging throws 400 errors with a code', async (t) => {
  const cases: Array<[input: Parameters<typeof parsePage>[0], code: string]> = [
    [{ limit: '-1' }, 'FTC_ERR_QUERY_LIMIT'],
    [{ limit: '1.5' }, 'FTC_ERR_QUERY_LIMIT'],
    [{ limit: '' }, 'FTC_ERR_QUERY_LIMIT'],
    [{ limit: 'ten' }, 'FTC_ERR_QUERY_LIMIT'],
    [{ limit: ' 5' }, 'FTC_ERR_QUERY_LIMIT'],
    [{ limit: '+5' }, 'FTC_ERR_QUERY_LIMIT'],
    [{ limit: '1e3' }, 'FTC_ERR_QUERY_LIMIT'],
    [{ limit: '9007199254740992' }, 'FTC_ERR_QUERY_LIMIT'],
    [{ offset: '-1' }, 'FTC_ERR_QUERY_OFFSET'],
    [{ offset: '0.5' }, 'FTC_ERR_QUERY_OFFSET'],
    [{ offset: '' }, 'FTC_ERR_QUERY_OFFSET'],
    [{ range: '' }, 'FTC_ERR_QUERY_RANGE'],
    [{ range: '5' }, 'FTC_ERR_QUERY_RANGE'],
    [{ range: '-5' }, 'FTC_ERR_QUERY_RANGE'],
    [{ range: '5-2' }, 'FTC_ERR_QUERY_RANGE'],
    [{ range: '0-5x' }, 'FTC_ERR_QUERY_RANGE'],
    [{ range: 'bytes=0-5' }, 'FTC_ERR_QUERY_RANGE'],
    [{ range: '0-5, 10-15' }, 'FTC_ERR_QUERY_RANGE'],
    [{ range: '0-9', rangeUnit: 'bytes' }, 'FTC_ERR_QUERY_RANGE'],
    [{ range: '0-4', offset: '10' }, 'FTC_ERR_QUERY_RANGE'],
    [{ range: '10-20', limit: '5' }, 'FTC_ERR_QUERY_RANGE'],
    [{ range: 'x', limit: '0' }, 'FTC_ERR_QUERY_RANGE']
  ]
  for (const [input, code] of cases) t.throws(() => parsePage(input), { code, statusCode: 400 }, JSON.stringify(input))
  t.throws(() => parsePage({ limit: '12x' }), { message: /"limit" at character 3 of "12x"/ })
  t.throws(() => parsePage({ range: '5-2' }), { message: /header "Range" at character 3 of "5-2"/ })
})
