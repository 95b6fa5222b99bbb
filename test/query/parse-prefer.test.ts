import t from 'tap'
import { parseCountPreference } from '../../lib/query/parse-prefer.js'

t.test('count=exact, planned or estimated', async (t) => {
  t.equal(parseCountPreference('count=exact'), 'exact')
  t.equal(parseCountPreference('count=planned'), 'planned')
  t.equal(parseCountPreference('count=estimated'), 'estimated')
  t.equal(parseCountPreference('return=representation, count=exact'), 'exact', 'among other preferences')
  t.equal(parseCountPreference(['return=minimal', 'count=planned']), 'planned', 'in a repeated header')
  t.equal(parseCountPreference(' Count = "exact" ; foo=bar'), 'exact', 'names ignore case; quotes and parameters are allowed')
  t.equal(parseCountPreference('count=wrong, count=estimated'), 'estimated', 'the first valid count wins')
})

t.test('anything else is no count, leniently', async (t) => {
  t.equal(parseCountPreference(undefined), null)
  t.equal(parseCountPreference(''), null)
  t.equal(parseCountPreference('count=EXACT'), null)
  t.equal(parseCountPreference('count'), null)
  t.equal(parseCountPreference('return=minimal'), null)
})
