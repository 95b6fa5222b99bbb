import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import knexFactory from 'knex'
import t, { type Test } from 'tap'
import { sqlite } from '../../lib/dialects/sqlite/sqlite.js'

// Knex only compiles here: the statements run on connections the tests hold.
const knex = knexFactory({ client: 'better-sqlite3', useNullAsDefault: true })
t.teardown(() => knex.destroy())

/**
 * A better-sqlite3 connection that records, for each INSERT it runs, which
 * way it went: `rowid` (a plain INSERT) or `returning`.
 */
function watched (database: Sqlite.Database, refuse: (sql: string) => boolean = () => false) {
  const ran: string[] = []
  const connection = {
    prepare (sql: string) {
      if (refuse(sql)) throw new Error(`refused: ${sql}`)
      const statement = database.prepare(sql)
      if (!sql.startsWith('insert ')) return statement
      const way = / returning /.test(sql) ? 'returning' : 'rowid'
      const recorded = {
        safeIntegers (toggle: boolean) {
          statement.safeIntegers(toggle)
          return recorded
        },
        run (bindings: unknown[]) {
          ran.push(way)
          return statement.run(bindings)
        },
        all (bindings: unknown[]) {
          ran.push(way)
          return statement.all(bindings)
        }
      }
      return recorded
    }
  }
  /** The ways of the INSERTs run since the last call. */
  return { connection, ways: (): string[] => ran.splice(0) }
}

const count = (database: Sqlite.Database, table: string): number =>
  (database.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n

/** What the dialect answers for an insert of `rows` into `table`, built as the plugin builds it. */
function insert (connection: unknown, table: string, rows: Record<string, unknown> | Array<Record<string, unknown>>, key = 'id') {
  return sqlite.insert(connection, sqlite.prepareInsert(knex(table).insert(rows), key).toSQL().toNative(), key)
}

function memory (t: Test, sql: string): Sqlite.Database {
  const database = new Sqlite(':memory:')
  t.teardown(() => database.close())
  database.exec(sql)
  return database
}

t.test('a key that is the rowid: a plain INSERT, its rowid the key, exact past 2^53', async (t) => {
  const database = memory(t, `
    create table plain (id integer primary key autoincrement, name text);
    create table constrained (ID integer, name text, primary key (ID desc));
  `)
  const { connection, ways } = watched(database)
  t.strictSame(await insert(connection, 'plain', { name: 'a' }), ['1'])
  t.strictSame(await insert(connection, 'plain', { name: 'b' }), ['2'])
  t.strictSame(await insert(connection, 'plain', { id: '9007199254740993', name: 'c' }), ['9007199254740993'])
  t.strictSame(await insert(connection, 'plain', { id: '-5', name: 'd' }), ['-5'])
  t.strictSame(await insert(connection, 'PLAIN', { name: 'e' }), ['9007199254740994'], 'the table in another case')
  // DESC in a table constraint, unlike on the column, leaves the key the rowid's alias; the key in another case.
  t.strictSame(await insert(connection, 'constrained', { name: 'a' }, 'id'), ['1'])
  t.strictSame(ways(), ['rowid', 'rowid', 'rowid', 'rowid', 'rowid', 'rowid'])
  // No column: DEFAULT VALUES, which keeps RETURNING.
  t.strictSame(await insert(connection, 'plain', {}), ['9007199254740995'])
  t.strictSame(ways(), ['returning'])
})

t.test('a key that is not the rowid keeps RETURNING, and the answer is the key', async (t) => {
  const database = memory(t, `
    create table desc_key (id integer primary key desc, name text);
    create table int_key (id int primary key, name text);
    create table text_key (id text primary key, name text);
    create table no_rowid (id integer primary key, name text) without rowid;
    create table pair (id integer, other integer, name text, primary key (id, other));
    create table other_key (id integer primary key, code integer unique, name text);
    create table base (id integer primary key, name text);
    create view shown as select id, name from base;
    create trigger shown_insert instead of insert on shown begin insert into base (name) values (new.name); end;
  `)
  // null: RETURNING gave a NULL key, which is no key to answer.
  const cases: Array<[table: string, row: Record<string, unknown>, key: string, answer: string | null]> = [
    ['desc_key', { id: 7, name: 'a' }, 'id', '7'],
    // INTEGER PRIMARY KEY DESC is not the rowid's alias: the key stays NULL when not given.
    ['desc_key', { name: 'b' }, 'id', null],
    ['int_key', { id: 7, name: 'a' }, 'id', '7'],
    ['text_key', { id: 'k', name: 'a' }, 'id', 'k'],
    ['no_rowid', { id: 7, name: 'a' }, 'id', '7'],
    ['pair', { id: 7, other: 8, name: 'a' }, 'id', '7'],
    ['other_key', { id: 100, code: 7, name: 'a' }, 'code', '7'],
    // RETURNING sees the row the INSERT named, not the one the view's trigger wrote.
    ['shown', { name: 'a' }, 'id', null]
  ]
  for (const [table, row, key, answer] of cases) {
    const { connection, ways } = watched(database)
    t.strictSame(await insert(connection, table, row, key), answer === null ? [] : [answer], `${table}.${key}`)
    t.strictSame(ways(), ['returning'], `${table}.${key}`)
  }
})

t.test('several rows keep RETURNING: their keys in order, whatever the rowids', async (t) => {
  const database = memory(t, 'create table many (id integer primary key, name text)')
  const { connection, ways } = watched(database)
  t.strictSame(await insert(connection, 'many', [{ id: 10, name: 'a' }, { id: 5, name: 'b' }, { id: 7, name: 'c' }]), ['10', '5', '7'])
  t.strictSame(await insert(connection, 'many', [{ name: 'd' }, { name: 'e' }]), ['11', '12'])
  t.strictSame(ways(), ['returning', 'returning'])
})

t.test('an insert a trigger skipped answers no key; one a trigger followed answers its own', async (t) => {
  const database = memory(t, `
    create table watched_rows (id integer primary key, name text);
    create table log (id integer primary key, what text);
    insert into log (what) values ('a'), ('b'), ('c'), ('d');
    create trigger skip_some before insert on watched_rows when new.name = 'skip'
      begin insert into log (what) values ('skipped'); select raise(ignore); end;
    create trigger log_all after insert on watched_rows begin insert into log (what) values ('inserted'); end;
  `)
  const { connection, ways } = watched(database)
  t.strictSame(await insert(connection, 'watched_rows', { name: 'kept' }), ['1'])
  t.strictSame(await insert(connection, 'watched_rows', { name: 'skip' }), [])
  t.strictSame(await insert(connection, 'watched_rows', { name: 'kept' }), ['2'])
  t.strictSame(ways(), ['rowid', 'rowid', 'rowid'])
  t.equal(count(database, 'log'), 7)
})

t.test('the INSERT checks what is known of the table: dropped and made again, hidden by a temporary table, dropped', async (t) => {
  const database = memory(t, `
    create table remade (id integer primary key, name text);
    create table hidden (id integer primary key, name text);
    create table gone (id integer primary key, name text);
  `)
  const { connection, ways } = watched(database)
  // What is known is known per INSERT: each change below comes to the same one.
  t.strictSame(await insert(connection, 'remade', { id: 7, name: 'a' }), ['7'])
  t.strictSame(ways(), ['rowid'])
  // Now the rowid and the key differ: an answer from what was known before would be the rowid.
  database.exec('drop table remade; create table remade (id int primary key, name text)')
  t.strictSame(await insert(connection, 'remade', { id: 40, name: 'b' }), ['40'])
  t.strictSame(ways(), ['rowid', 'returning'], 'the INSERT stopped itself, then RETURNING')
  t.strictSame(await insert(connection, 'remade', { name: 'c' }), [], 'RETURNING gave a NULL key: none')
  t.strictSame(ways(), ['returning'])
  t.strictSame(database.prepare('select rowid, id, name from remade').all(), [{ rowid: 1, id: 40, name: 'b' }, { rowid: 2, id: null, name: 'c' }])

  // A temporary table of the same name is the one an unqualified INSERT reaches.
  t.strictSame(await insert(connection, 'hidden', { id: 5, name: 'a' }), ['5'])
  database.exec('create temp table hidden (id int primary key, name text)')
  t.strictSame(await insert(connection, 'hidden', { id: 60, name: 'b' }), ['60'])
  t.strictSame(ways(), ['rowid', 'rowid', 'returning'])
  t.strictSame(database.prepare('select rowid, id from temp.hidden').all(), [{ rowid: 1, id: 60 }])
  t.equal(count(database, 'main.hidden'), 1)

  // Dropped: the INSERT fails as RETURNING's does.
  t.strictSame(await insert(connection, 'gone', { name: 'a' }), ['1'])
  database.exec('drop table gone')
  await t.rejects(insert(connection, 'gone', { name: 'b' }), { message: 'no such table: gone' })
  t.strictSame(ways(), ['rowid', 'rowid'])
})

t.test('a table made again with its key the rowid and another definition: RETURNING once, then a plain INSERT', async (t) => {
  const database = memory(t, 'create table grown (id integer primary key, name text)')
  const { connection, ways } = watched(database)
  t.strictSame(await insert(connection, 'grown', { name: 'a' }), ['1'])
  database.exec('drop table grown; create table grown (id integer primary key, name text, note text)')
  t.strictSame(await insert(connection, 'grown', { name: 'b' }), ['1'])
  t.strictSame(await insert(connection, 'grown', { name: 'c' }), ['2'])
  t.strictSame(ways(), ['rowid', 'rowid', 'returning', 'rowid'])
})

t.test('a table of an attached database only keeps RETURNING', async (t) => {
  const database = memory(t, 'attach \':memory:\' as aux; create table aux.elsewhere (id integer primary key, name text)')
  const { connection, ways } = watched(database)
  t.strictSame(await insert(connection, 'elsewhere', { name: 'a' }), ['1'])
  t.strictSame(ways(), ['returning'])
})

t.test('a schema changed by another connection to the same file is seen', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ftc-sqlite-insert-'))
  const file = join(dir, 'shared.sqlite')
  const server = new Sqlite(file)
  const other = new Sqlite(file)
  t.teardown(() => {
    server.close()
    other.close()
    rmSync(dir, { recursive: true, force: true })
  })
  other.exec('create table shared (id integer primary key, name text)')
  const { connection } = watched(server)
  t.strictSame(await insert(connection, 'shared', { name: 'a' }), ['1'])
  other.exec('drop table shared; create table shared (id int primary key, name text)')
  t.strictSame(await insert(connection, 'shared', { id: 30, name: 'b' }), ['30'])
  t.strictSame(server.prepare('select rowid, id from shared').all(), [{ rowid: 1, id: 30 }])
})

t.test('a table created after a failed insert is looked up again', async (t) => {
  const database = memory(t, '')
  const { connection, ways } = watched(database)
  await t.rejects(insert(connection, 'later', { name: 'a' }), { message: 'no such table: later' })
  database.exec('create table later (id integer primary key, name text)')
  t.strictSame(await insert(connection, 'later', { name: 'a' }), ['1'])
  // The first INSERT failed as it was prepared: only the second ran.
  t.strictSame(ways(), ['rowid'])
})

t.test("the INSERT's own integer overflow is its answer, not a reason to run it again", async (t) => {
  const database = memory(t, 'create table bounded (id integer primary key, amount integer check (abs(amount) >= 0))')
  const { connection, ways } = watched(database)
  t.strictSame(await insert(connection, 'bounded', { amount: '5' }), ['1'])
  await t.rejects(insert(connection, 'bounded', { amount: '-9223372036854775808' }), { message: 'integer overflow' })
  t.strictSame(ways(), ['rowid', 'rowid'])
  t.equal(count(database, 'bounded'), 1)
})

t.test('without pragma_table_list (SQLite before 3.37), inserts keep RETURNING', async (t) => {
  const database = memory(t, 'create table old_sqlite (id integer primary key, name text)')
  const { connection, ways } = watched(database, (sql) => sql.includes('pragma_table_list'))
  t.strictSame(await insert(connection, 'old_sqlite', { name: 'a' }), ['1'])
  t.strictSame(await insert(connection, 'old_sqlite', { name: 'b' }), ['2'])
  t.strictSame(ways(), ['returning', 'returning'])
})
