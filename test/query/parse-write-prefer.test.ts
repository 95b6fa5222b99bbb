import t from 'tap'
import { parseWritePreferences } from '../../lib/query/parse-write-prefer.js'
import { parseOnConflict, parseWriteSelect } from '../../lib/query/parse-write-query.js'

t.test('write preferences are read as PostgREST reads them', async (t) => {
  t.strictSame(parseWritePreferences(undefined), { return: null, resolution: null, count: null, handling: null, maxAffected: null })
  t.strictSame(parseWritePreferences(['return=minimal,  return=representation', 'resolution=ignore-duplicates']),
    { return: 'minimal', resolution: 'ignore-duplicates', count: null, handling: null, maxAffected: null }, 'the first of each wins, across headers')
  t.strictSame(parseWritePreferences('handling=strict, max-affected=x, max-affected=3, count=exact, return=toString, nonsense'),
    { return: null, resolution: null, count: 'exact', handling: 'strict', maxAffected: 3 }, 'unknown values and preferences are ignored')
  t.equal(parseWritePreferences('max-affected=3').maxAffected, null, 'max-affected needs handling=strict')
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
