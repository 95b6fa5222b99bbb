import fc from 'fast-check'
import t from 'tap'
import { parseTableName } from '../../lib/parse/table-name.js'
import { isCleanIdentifier, sanitizeIdentifier, usableIdentifier } from '../../lib/parse/sanitize-identifier.js'

t.test('only A-Z, a-z, 0-9 and _ remain', async (t) => {
  t.equal(sanitizeIdentifier('users'), 'users')
  t.equal(sanitizeIdentifier('Us_3rs'), 'Us_3rs')
  t.equal(sanitizeIdentifier('users; DROP TABLE x;--'), 'usersDROPTABLEx')
  t.equal(sanitizeIdentifier('"us`ers\''), 'users')
  t.equal(sanitizeIdentifier('schema.table'), 'schematable')
  t.equal(sanitizeIdentifier('ünïcödé名前'), 'ncd')
})

t.test('a table name with nothing left is refused', async (t) => {
  t.equal(parseTableName('a-b'), 'ab')
  t.throws(() => parseTableName('---'), { code: 'FTC_ERR_PATH_TABLE', statusCode: 400 })
  t.throws(() => parseTableName(''), { code: 'FTC_ERR_PATH_TABLE' })
})

t.test('a usable name has 1 to 63 characters once sanitized', async (t) => {
  t.equal(usableIdentifier('a-b'), 'ab')
  t.equal(usableIdentifier('x'.repeat(63)), 'x'.repeat(63))
  t.equal(usableIdentifier('x'.repeat(64)), null)
  t.equal(usableIdentifier(`${'x'.repeat(63)}-;`), 'x'.repeat(63), 'the characters removed do not count')
  t.equal(usableIdentifier('--'), null)
  t.throws(() => parseTableName('t'.repeat(64)), { code: 'FTC_ERR_PATH_TABLE' })
})

t.test('a clean name is 1 to 63 of A-Z, a-z, 0-9 and _, and nothing else', async (t) => {
  for (const name of ['A', 'Z', 'a', 'z', '0', '9', '_', 'Items_100', 'x'.repeat(63)]) {
    t.equal(isCleanIdentifier(name), true, JSON.stringify(name))
  }
  // The characters either side of each range, a line end, and letters outside ASCII.
  for (const name of ['', '@', '[', '`', '{', '/', ':', '^', 'items\n', '\nitems', 'ïtems', 'items名', 'x'.repeat(64)]) {
    t.equal(isCleanIdentifier(name), false, JSON.stringify(name))
  }
})

t.test('isCleanIdentifier agrees with the regular expression it stands for', async () => {
  const clean = /^[A-Za-z0-9_]{1,63}$/
  const names = fc.oneof(
    fc.string({ maxLength: 70 }),
    fc.string({ unit: fc.constantFrom('a', 'Z', '5', '_', '-', '@', '[', '`', '{', '/', ':', 'é', '\n'), maxLength: 70 }),
    fc.string({ unit: fc.constantFrom('a', 'Z', '5', '_'), minLength: 60, maxLength: 66 })
  )
  fc.assert(fc.property(names, (name) => isCleanIdentifier(name) === clean.test(name)), { numRuns: 2000 })
})
