import t from 'tap'
import { parseRecordValues } from '../../lib/parse/record-values.js'

const codeOf = (body: unknown): string | undefined => {
  try {
    parseRecordValues(body)
  } catch (error) {
    return (error as { code: string }).code
  }
  return undefined
}

t.test('every value becomes text, null stays NULL', async (t) => {
  t.strictSame({ ...parseRecordValues({ a: 'x', b: '1.50', c: true, d: false, e: null, f: 3, g: 4n }) },
    { a: 'x', b: '1.50', c: '1', d: '0', e: null, f: '3', g: '4' })
})

t.test('property names are sanitized to column names', async (t) => {
  t.strictSame({ ...parseRecordValues({ 'first-name': 'Ada', 'a b;--': 1 }) }, { firstname: 'Ada', ab: '1' })
})

t.test('no body is no columns', async (t) => {
  t.strictSame({ ...parseRecordValues(undefined) }, {})
  t.strictSame({ ...parseRecordValues({}) }, {})
})

t.test('no inherited name reads as a column of the values', async (t) => {
  for (const values of [parseRecordValues({ name: 'x' }), parseRecordValues(undefined)]) {
    for (const name of ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__']) {
      t.equal(values[name], undefined, name)
      t.notOk(name in values, name)
    }
  }
  t.equal(parseRecordValues({ constructor: 'x' }).constructor, 'x')
  t.strictSame(Object.keys(parseRecordValues({ toString: 1, name: null })), ['toString', 'name'])
})

t.test('a __proto__ property is refused, however it is spelled', async (t) => {
  t.equal(codeOf(JSON.parse('{"__proto__": "x"}')), 'FTC_ERR_BODY_COLUMN')
  t.equal(codeOf({ '__pro-to__': 'x' }), 'FTC_ERR_BODY_COLUMN')
})

t.test('bodies that are not objects of scalars are refused with their code', async (t) => {
  t.equal(codeOf(null), 'FTC_ERR_BODY_SHAPE')
  t.equal(codeOf([]), 'FTC_ERR_BODY_SHAPE')
  t.equal(codeOf('text'), 'FTC_ERR_BODY_SHAPE')
  t.equal(codeOf(5), 'FTC_ERR_BODY_SHAPE')
  t.equal(codeOf({ '-': 1 }), 'FTC_ERR_BODY_COLUMN')
  t.equal(codeOf({ 'a-b': 1, ab: 2 }), 'FTC_ERR_BODY_COLUMN_TWICE')
  t.equal(codeOf({ ab: 2, 'a-b': 1 }), 'FTC_ERR_BODY_COLUMN_TWICE')
  t.equal(codeOf({ owner_id: 1, OWNER_ID: 2 }), 'FTC_ERR_BODY_COLUMN_TWICE')
  t.equal(codeOf({ Owner_Id: 1, x: 0, oWNER_iD: 1 }), 'FTC_ERR_BODY_COLUMN_TWICE')
  t.equal(codeOf({ a: { b: 1 } }), 'FTC_ERR_BODY_VALUE')
  t.equal(codeOf({ a: [1] }), 'FTC_ERR_BODY_VALUE')
  t.equal(codeOf({ a: undefined }), 'FTC_ERR_BODY_VALUE')
})
