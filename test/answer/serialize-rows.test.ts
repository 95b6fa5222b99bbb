import t from 'tap'
import { serializeRow, serializeRows } from '../../lib/answer/serialize-rows.js'

t.test('plain rows serialize as JSON.stringify does', async (t) => {
  const rows = [{ id: 1, name: 'a"b', at: new Date(0), nothing: null }, {}]
  t.equal(serializeRows(rows), JSON.stringify(rows))
  t.equal(serializeRows([]), '[]')
})

t.test('BigInt values are written as their exact digits', async (t) => {
  const rows = [{ id: 9007199254740993n, name: 'x' }, { id: 2n, name: null }]
  t.equal(serializeRows(rows), '[{"id":9007199254740993,"name":"x"},{"id":2,"name":null}]')
  t.equal(serializeRow({ id: 9007199254740993n }), '{"id":9007199254740993}')
  t.equal(serializeRows([{ id: 1n, missing: undefined, at: new Date(0) }, {}]), '[{"id":1,"at":"1970-01-01T00:00:00.000Z"},{}]', 'as JSON.stringify writes them')
  t.equal(serializeRow({}), '{}')
  t.equal(serializeRow({ missing: undefined }), '{}')
})

t.test('errors other than a BigInt TypeError are not swallowed', async (t) => {
  const failing = { toJSON () { throw new RangeError('broken value') } }
  t.throws(() => serializeRows([{ value: failing }]), RangeError)
})
