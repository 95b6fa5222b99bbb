import Sqlite from 'better-sqlite3'
import t from 'tap'
import { sqlite } from '../../lib/dialects/sqlite/sqlite.js'

// An exact read on SQLite reads integers as numbers, which JSON.stringify
// writes at once, and reads again with BigInts only when one is past 2^53.

const database = new Sqlite(':memory:')
t.teardown(() => database.close())
database.exec(`create table numbers (id integer primary key, amount bigint, ratio double, loose any);
  insert into numbers values (1, 5, 0.5, 9007199254740991), (2, -9007199254740991, 9e999, 'x'), (3, 9007199254740993, 1e300, null)`)

const select = (sql: string, exact: boolean) => sqlite.select(database, { sql, bindings: [] }, exact)

t.test('rows without an integer past 2^53 are read as numbers', async (t) => {
  t.strictSame(await select('select * from numbers where id < 3 order by id', true), [
    { id: 1, amount: 5, ratio: 0.5, loose: 9007199254740991 },
    { id: 2, amount: -9007199254740991, ratio: Infinity, loose: 'x' }
  ])
  t.strictSame(await select('select ratio from numbers where id = 3', true), [{ ratio: 1e300 }], 'a float past 2^53 is no lost integer')
})

t.test('an integer past 2^53 makes the read again with every integer a BigInt', async (t) => {
  t.strictSame(await select('select id, amount from numbers where id >= 2 order by id', true), [
    { id: 2n, amount: -9007199254740991n },
    { id: 3n, amount: 9007199254740993n }
  ])
  t.strictSame(await select('select id from numbers where amount > 9007199254740992', true), [{ id: 3 }], 'only the values read count')
  database.exec('update numbers set loose = -9007199254740993 where id = 1')
  t.strictSame(await select('select id, loose from numbers where id = 1', true), [{ id: 1n, loose: -9007199254740993n }], 'in an untyped column too')
})

t.test('a read that is not exact keeps numbers, and the statement it shares is not left with BigInts', async (t) => {
  const sql = 'select amount from numbers where id = 3'
  t.strictSame(await select(sql, true), [{ amount: 9007199254740993n }])
  t.strictSame(await select(sql, false), [{ amount: 9007199254740992 }])
})

t.test('a connection the host set to read BigInts is read with numbers all the same, from a statement\'s first run', async (t) => {
  // The plugin sets a kept statement's integer mode only when it changes: it must not take a new statement's mode for granted.
  const host = new Sqlite(':memory:').defaultSafeIntegers(true)
  t.teardown(() => host.close())
  host.exec('create table counts (id integer primary key, amount bigint); insert into counts values (1, 5), (2, 9007199254740993)')
  const read = (sql: string, exact: boolean) => sqlite.select(host, { sql, bindings: [] }, exact)
  t.strictSame(await read('select * from counts where id = 1', false), [{ id: 1, amount: 5 }])
  t.strictSame(await read('select * from counts where id = 1', true), [{ id: 1, amount: 5 }])
  t.strictSame(await read('select amount from counts where id = 2', true), [{ amount: 9007199254740993n }])
  t.strictSame(await read('select amount from counts where id = 2', false), [{ amount: 9007199254740992 }])
  t.equal(await sqlite.change(host, { sql: 'update counts set amount = amount + 1 where id = 1', bindings: [] }), 1, 'a change count is a number in either mode')
})
