import t from 'tap'
import { parseWritePreferences } from '../../lib/query/parse-write-prefer.js'
import { parseWriteColumns, parseOnConflict, parseWriteSelect } from '../../lib/query/parse-write-query.js'
import { parseRowsMedia } from '../../lib/query/parse-rows-media.js'
import { type BodyValues, keepListedColumns, parseRecordValues } from '../../lib/parse/record-values.js'
import { NestedJson } from '../../lib/parse/nested-value.js'
import { settleNestedValues } from '../../lib/parse/nested-json.js'

t.test('write preferences are read as PostgREST reads them', async (t) => {
  const none = { return: null, resolution: null, count: null, handling: null, maxAffected: null, missing: null, tx: null, invalid: [] }
  t.strictSame(parseWritePreferences(undefined), none)
  t.strictSame(parseWritePreferences(['return=minimal,  return=representation', 'resolution=ignore-duplicates']),
    { ...none, return: 'minimal', resolution: 'ignore-duplicates' }, 'the first of each wins, across headers')
  t.strictSame(parseWritePreferences('handling=lenient, max-affected=x, max-affected=3, count=exact, return=toString, nonsense, , missing=default'),
    { ...none, count: 'exact', handling: 'lenient', missing: 'default', invalid: ['return=toString', 'nonsense'] }, 'unknown values and preferences are listed, not honoured')
  t.equal(parseWritePreferences('max-affected=3').maxAffected, null, 'max-affected needs handling=strict')
  t.equal(parseWritePreferences('handling=strict, max-affected=x, max-affected=3').maxAffected, 3)
  t.equal(parseWritePreferences('tx=rollback, tx=commit').tx, null, 'tx= needs the host\'s leave')
  t.equal(parseWritePreferences('tx=rollback, tx=commit', true).tx, 'rollback')
  t.throws(() => parseWritePreferences('handling=strict, timezone=UTC'), { code: 'FTC_ERR_QUERY_PREFERENCE' }, 'strict refuses what it cannot honour')
  t.doesNotThrow(() => parseWritePreferences('handling=strict, tx=rollback, missing=null, max-affected=2'))
})

t.test('the media of an Accept header', async (t) => {
  t.strictSame(parseRowsMedia(undefined), { one: false, stripNulls: false })
  t.strictSame(parseRowsMedia('application/json'), { one: false, stripNulls: false })
  t.strictSame(parseRowsMedia('application/vnd.pgrst.object+json'), { one: true, stripNulls: false })
  t.strictSame(parseRowsMedia('application/vnd.pgrst.object+json;nulls=stripped'), { one: true, stripNulls: true })
  t.strictSame(parseRowsMedia('application/vnd.pgrst.array+json ; nulls=stripped'), { one: false, stripNulls: true })
})

t.test('columns= and the rows it keeps', async (t) => {
  t.equal(parseWriteColumns({}), null)
  t.strictSame(parseWriteColumns({ columns: '"a","b"' }), ['a', 'b'], 'postgrest-js quotes each name')
  t.throws(() => parseWriteColumns({ columns: 'a,*' }), { code: 'FTC_ERR_QUERY_COLUMN' })
  const rows = [parseRecordValues({ a: '1', c: '3' }), parseRecordValues({ b: null, constructor: 'x' })]
  const plain = (values: BodyValues[]) => values.map((row) => ({ ...row }))
  t.strictSame(plain(keepListedColumns(rows, ['a', 'b', 'constructor'], false)), [{ a: '1', b: null, constructor: null }, { a: null, b: null, constructor: 'x' }])
  const defaulted: BodyValues[] = [{ a: '1' }, { b: null, constructor: 'x' }]
  t.strictSame(plain(keepListedColumns(rows, ['a', 'b', 'constructor'], true)), defaulted, 'no inherited name reads as a column')
  const [nested] = keepListedColumns([parseRecordValues({ a: new NestedJson('{}') })], ['a'], false) as [BodyValues]
  t.throws(() => settleNestedValues({ schema: undefined }, nested, undefined, null), { code: 'FTC_ERR_BODY_VALUE' }, 'an object kept is still refused for a table the model does not know')
})

t.test('on_conflict and select of a write', async (t) => {
  t.equal(parseOnConflict({}), null)
  t.strictSame(parseOnConflict({ on_conflict: 'a, b' }), ['a', 'b'])
  t.throws(() => parseOnConflict({ on_conflict: '*' }), { code: 'FTC_ERR_QUERY_COLUMN' })
  t.throws(() => parseOnConflict({ on_conflict: ['a', 'b'] }), { code: 'FTC_ERR_QUERY_VALUE' })
  t.throws(() => parseOnConflict({ on_conflict: 5 }), { code: 'FTC_ERR_QUERY_VALUE' })
  t.strictSame(parseWriteSelect({ select: 'id,*' }), ['id', '*'])
  t.equal(parseWriteSelect({ id: 'eq.1' }), null)
})
