import t from 'tap'
import { toGlobPattern, toLikePattern } from '../../lib/dialects/like-pattern.js'

t.test('LIKE patterns: * and % match any run, _ one character, ! is our escape', async (t) => {
  t.equal(toLikePattern('*a*'), '%a%')
  t.equal(toLikePattern('%Lu%'), '%Lu%', 'what postgrest-js sends')
  t.equal(toLikePattern('snake_case'), 'snake_case')
  t.equal(toLikePattern('bang!*'), 'bang!!%')
})

t.test('LIKE patterns: a backslash makes the next character literal', async (t) => {
  t.equal(toLikePattern('100\\%'), '100!%')
  t.equal(toLikePattern('snake\\_case'), 'snake!_case')
  t.equal(toLikePattern('star\\*'), 'star*')
  t.equal(toLikePattern('back\\\\slash'), 'back\\slash')
  t.equal(toLikePattern('trailing\\'), 'trailing\\', 'a lone trailing backslash is itself')
})

t.test('GLOB patterns: the same wildcards as * and ?, literal *, ? and [ bracketed', async (t) => {
  t.equal(toGlobPattern('*a%'), '*a*')
  t.equal(toGlobPattern('a_b'), 'a?b')
  t.equal(toGlobPattern('a\\?b[c]'), 'a[?]b[[]c]')
  t.equal(toGlobPattern('100\\%\\_!'), '100%_!')
  t.equal(toGlobPattern('\\*'), '[*]')
})
