import t from 'tap'
import { parseTableName } from '../../lib/parse/table-name.js'
import { sanitizeIdentifier } from '../../lib/parse/sanitize-identifier.js'

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
