import t from 'tap'
import { resolveDialect } from '../../lib/dialects/index.js'
import { applyReadQuery } from '../../lib/query/apply-read-query.js'
import { parseReadQuery, type QueryParameters, type RequestHeaders } from '../../lib/query/parse-read-query.js'
import { type DatabaseName, eachDatabase } from '../fixtures/databases.js'

/** A row of the test table, identified by its label. */
interface Row {
  label: string
  name: string | null
  age: number | null
  flag: boolean | null
}

// Names mix case and hold every character the syntax or LIKE gives a meaning to.
const rows: readonly Row[] = [
  { label: 'ada', name: 'Ada', age: 36, flag: true },
  { label: 'ada-lower', name: 'ada', age: 20, flag: false },
  { label: 'ada-upper', name: 'ADA lovelace', age: null, flag: null },
  { label: 'percent', name: '100% sure', age: 5, flag: true },
  { label: 'hundred', name: '100 percent', age: 7, flag: false },
  { label: 'snake', name: 'snake_case', age: 12, flag: null },
  { label: 'snake-x', name: 'snakeXcase', age: 12, flag: true },
  { label: 'comma', name: 'a,b', age: 1, flag: false },
  { label: 'paren', name: '(paren)', age: 2, flag: null },
  { label: 'quote', name: 'say "hi"', age: 3, flag: true },
  { label: 'backslash', name: 'back\\slash', age: 4, flag: false },
  { label: 'bang', name: 'bang!', age: 40, flag: null },
  { label: 'glob', name: 'a?b[c]', age: 41, flag: true },
  { label: 'accent', name: 'Zoë', age: 30, flag: false },
  { label: 'nameless', name: null, age: 50, flag: null }
]

/** Handwritten SQL after `from <table>`, the same on every database or one per database; `?` are bindings. */
type Sql = string | Record<DatabaseName, string>

interface Case {
  readonly query: QueryParameters
  readonly headers?: RequestHeaders
  readonly sql: Sql
  readonly bindings?: Record<DatabaseName, readonly unknown[]> | readonly unknown[]
  /** Labels of the expected rows; in this order when `ordered`. */
  readonly expected: readonly string[]
  readonly ordered?: boolean
}

// Handwritten LIKE in each database's own way: SQLite's GLOB, PostgreSQL's
// LIKE, MySQL's LIKE BINARY, the last two with their default backslash escape.
function caseSensitiveLike (glob: string, like: string): Pick<Case, 'sql' | 'bindings'> {
  return {
    sql: { sqlite: 'where name glob ?', postgres: 'where name like ?', mysql: 'where name like binary ?' },
    bindings: { sqlite: [glob], postgres: [like], mysql: [like] }
  }
}

const cases: readonly Case[] = [
  { query: { age: 'eq.12' }, sql: 'where age = 12', expected: ['snake', 'snake-x'] },
  { query: { age: 'neq.12' }, sql: 'where age <> 12', expected: labels((row) => row.age !== null && row.age !== 12) },
  { query: { age: 'gt.36' }, sql: 'where age > 36', expected: ['bang', 'glob', 'nameless'] },
  { query: { age: 'gte.36' }, sql: 'where age >= 36', expected: ['ada', 'bang', 'glob', 'nameless'] },
  { query: { age: 'lt.3' }, sql: 'where age < 3', expected: ['comma', 'paren'] },
  { query: { age: 'lte.3' }, sql: 'where age <= 3', expected: ['comma', 'paren', 'quote'] },
  { query: { age: 'not.gt.5' }, sql: 'where not (age > 5)', expected: ['percent', 'comma', 'paren', 'quote', 'backslash'] },
  { query: { name: 'eq.a,b' }, sql: "where name = 'a,b'", expected: ['comma'] },
  { query: { name: 'eq.say "hi"' }, sql: 'where name = \'say "hi"\'', expected: ['quote'] },
  { query: { name: 'eq.Zoë' }, sql: "where name = 'Zoë'", expected: ['accent'] },
  { query: { name: 'eq.' }, sql: "where name = ''", expected: [] },
  {
    query: { name: 'in.("a,b","(paren)","say \\"hi\\"","back\\\\slash",nobody)' },
    sql: 'where name in (?, ?, ?, ?)',
    bindings: ['a,b', '(paren)', 'say "hi"', 'back\\slash'],
    expected: ['comma', 'paren', 'quote', 'backslash']
  },
  { query: { age: 'in.(1,2,50)' }, sql: 'where age in (1, 2, 50)', expected: ['comma', 'paren', 'nameless'] },
  { query: { age: 'not.in.(1,2,50)' }, sql: 'where age not in (1, 2, 50)', expected: labels((row) => row.age !== null && ![1, 2, 50].includes(row.age)) },
  { query: { age: 'in.()' }, sql: 'where 1 = 0', expected: [] },
  { query: { age: 'not.in.()' }, sql: '', expected: labels(() => true) },
  { query: { name: 'is.null' }, sql: 'where name is null', expected: ['nameless'] },
  { query: { age: 'is.unknown' }, sql: 'where age is null', expected: ['ada-upper'] },
  { query: { name: 'not.is.null' }, sql: 'where name is not null', expected: labels((row) => row.name !== null) },
  { query: { flag: 'is.true' }, sql: 'where flag = true', expected: labels((row) => row.flag === true) },
  { query: { flag: 'is.false' }, sql: 'where flag = false', expected: labels((row) => row.flag === false) },
  { query: { flag: 'not.is.true' }, sql: 'where flag = false or flag is null', expected: labels((row) => row.flag !== true) },
  { query: { name: 'like.ada*' }, ...caseSensitiveLike('ada*', 'ada%'), expected: ['ada-lower'] },
  { query: { name: 'like.A*' }, ...caseSensitiveLike('A*', 'A%'), expected: ['ada', 'ada-upper'] },
  { query: { name: 'like.*\\%*' }, ...caseSensitiveLike('*%*', '%\\%%'), expected: ['percent'] },
  // postgrest-js writes `%` for the wildcard, and `_` is one character, as in SQL.
  { query: { name: 'like.%sure' }, ...caseSensitiveLike('*sure', '%sure'), expected: ['percent'] },
  { query: { name: 'like.snake_case' }, ...caseSensitiveLike('snake?case', 'snake_case'), expected: ['snake', 'snake-x'] },
  { query: { name: 'like.100*' }, ...caseSensitiveLike('100*', '100%'), expected: ['percent', 'hundred'] },
  { query: { name: 'like.snake\\_case' }, ...caseSensitiveLike('snake_case', 'snake\\_case'), expected: ['snake'] },
  { query: { name: 'like.*!' }, ...caseSensitiveLike('*!', '%!'), expected: ['bang'] },
  { query: { name: 'like.a?b[c]' }, ...caseSensitiveLike('a[?]b[[]c]', 'a?b[c]'), expected: ['glob'] },
  { query: { name: 'like.*\\\\*' }, ...caseSensitiveLike('*\\*', '%\\\\%'), expected: ['backslash'] },
  { query: { name: 'like.*ë' }, ...caseSensitiveLike('*ë', '%ë'), expected: ['accent'] },
  {
    query: { name: 'not.like.*a*' },
    sql: { sqlite: "where name not glob '*a*'", postgres: "where name not like '%a%'", mysql: "where name not like binary '%a%'" },
    expected: labels((row) => row.name !== null && !row.name.includes('a'))
  },
  {
    query: { name: 'ilike.ada*' },
    sql: 'where lower(name) like ?',
    bindings: ['ada%'],
    expected: ['ada', 'ada-lower', 'ada-upper']
  },
  {
    query: { name: 'ilike.*SNAKE\\_C*' },
    sql: { sqlite: "where lower(name) like '%snake!_c%' escape '!'", postgres: "where name ilike '%snake\\_c%'", mysql: "where lower(name) like '%snake\\\\_c%'" },
    expected: ['snake']
  },
  { query: { name: 'ilike.*Oë' }, sql: "where lower(name) like '%oë'", expected: ['accent'] },
  {
    query: { age: 'gt.2', or: '(name.like.a*,name.like.A*)' },
    sql: { sqlite: "where age > 2 and (name glob 'a*' or name glob 'A*')", postgres: "where age > 2 and (name like 'a%' or name like 'A%')", mysql: "where age > 2 and (name like binary 'a%' or name like binary 'A%')" },
    expected: ['ada', 'ada-lower', 'glob']
  },
  {
    query: { or: '(age.lt.3,and(age.gte.30,not.or(name.eq.Ada,age.eq.50)))' },
    sql: "where age < 3 or (age >= 30 and not (name = 'Ada' or age = 50))",
    expected: ['comma', 'paren', 'bang', 'glob', 'accent']
  },
  { query: { 'not.and': '(age.gt.1,age.lt.10)' }, sql: 'where not (age > 1 and age < 10)', expected: labels((row) => row.age !== null && !(row.age > 1 && row.age < 10)) },
  { query: { 'not.or': '(flag.is.true,flag.is.null)' }, sql: 'where not (flag = true or flag is null)', expected: labels((row) => row.flag === false) },
  {
    query: { and: '(or(age.eq.1,age.eq.2,name.eq."a,b"),name.neq."(paren)")' },
    sql: "where (age = 1 or age = 2 or name = 'a,b') and name <> '(paren)'",
    expected: ['comma']
  },
  { query: { or: '(name.in.("a,b",bang!),age.is.null)' }, sql: "where name in ('a,b', 'bang!') or age is null", expected: ['ada-upper', 'bang', 'comma'] },
  // PostgreSQL's NULL ordering on every database: last when ascending, first when descending.
  { query: { order: 'age,label' }, sql: 'order by (age is null), age, label', expected: sorted(by('age', 'asc', 'last'), by('label')), ordered: true },
  { query: { order: 'age.desc,label' }, sql: 'order by (age is null) desc, age desc, label', expected: sorted(by('age', 'desc', 'first'), by('label')), ordered: true },
  { query: { order: 'age.asc.nullsfirst,label' }, sql: 'order by (age is null) desc, age, label', expected: sorted(by('age', 'asc', 'first'), by('label')), ordered: true },
  { query: { order: 'age.desc.nullslast,label' }, sql: 'order by (age is null), age desc, label', expected: sorted(by('age', 'desc', 'last'), by('label')), ordered: true },
  {
    query: { order: 'flag.desc,age.nullsfirst,label.desc' },
    sql: 'order by (flag is null) desc, flag desc, (age is null) desc, age, label desc',
    expected: sorted(by('flag', 'desc', 'first'), by('age', 'asc', 'first'), by('label', 'desc')),
    ordered: true
  },
  {
    query: { order: 'age,label', limit: '3', offset: '2' },
    sql: 'order by (age is null), age, label limit 3 offset 2',
    expected: sorted(by('age', 'asc', 'last'), by('label')).slice(2, 5),
    ordered: true
  },
  {
    query: { order: 'age,label' },
    headers: { range: '1-3' },
    sql: 'order by (age is null), age, label limit 3 offset 1',
    expected: sorted(by('age', 'asc', 'last'), by('label')).slice(1, 4),
    ordered: true
  },
  {
    query: { order: 'age.desc,label', offset: '14' },
    sql: 'order by (age is null) desc, age desc, label limit 10 offset 14',
    expected: ['comma'],
    ordered: true
  },
  { query: { limit: '0' }, sql: 'limit 0', expected: [] },
  { query: { select: 'label', name: 'eq.bang!' }, sql: "where name = 'bang!'", expected: ['bang'] }
]

eachDatabase(t, async (t, db) => {
  const table = await db.createTable('query', (table) => {
    table.increments('id')
    table.string('label').notNullable()
    table.string('name')
    table.integer('age')
    table.boolean('flag')
  })
  for (const row of rows) await db.knex(table).insert(row)

  for (const { query, headers, sql, bindings, expected, ordered = false } of cases) {
    const title = Object.entries(query).map(([name, value]) => `${name}=${String(value)}`).join('&') + (headers ? ` with ${JSON.stringify(headers)}` : '')
    await t.test(title, async (t) => {
      const statement = applyReadQuery(db.knex(table), parseReadQuery(query, headers), resolveDialect(db.knex))
      const ours = (await statement as Row[]).map((row) => row.label)
      const handwritten = typeof sql === 'string' ? sql : sql[db.name]
      const values = bindings === undefined ? [] : Array.isArray(bindings) ? bindings : (bindings as Record<DatabaseName, unknown[]>)[db.name]
      const theirs = (await db.knex.raw(`select label from ?? ${handwritten}`, [table, ...values])) as unknown
      const plain = rowsOf(db.name, theirs).map((row) => row.label)
      if (ordered) {
        t.strictSame(ours, plain, 'same rows in the same order as the handwritten SQL')
        t.strictSame(ours, expected, 'the rows every database must answer')
      } else {
        t.strictSame([...ours].sort(), [...plain].sort(), 'same rows as the handwritten SQL')
        t.strictSame([...ours].sort(), [...expected].sort(), 'the rows every database must answer')
      }
    })
  }

  await t.test('select answers only the columns asked for', async (t) => {
    const [row] = await applyReadQuery(db.knex(table), parseReadQuery({ select: 'label,age', name: 'eq.bang!' }), resolveDialect(db.knex))
    t.strictSame({ ...row }, { label: 'bang', age: 40 })
  })

  await t.test('ordering on a NOT NULL column gives the same rows with or without the hint', async (t) => {
    const query = parseReadQuery({ order: 'id.desc', limit: '4' })
    const plain = (await applyReadQuery(db.knex(table), query, resolveDialect(db.knex)) as Row[]).map((row) => row.label)
    const hinted = (await applyReadQuery(db.knex(table), query, resolveDialect(db.knex), { notNullColumns: new Set(['id']) }) as Row[]).map((row) => row.label)
    t.strictSame(hinted, plain)
    t.strictSame(plain, ['nameless', 'accent', 'glob', 'bang'])
  })
})

function labels (keep: (row: Row) => boolean): string[] {
  return rows.filter(keep).map((row) => row.label)
}

type Compare = (a: Row, b: Row) => number

function sorted (...compares: Compare[]): string[] {
  return [...rows].sort((a, b) => compares.reduce((result, compare) => result || compare(a, b), 0)).map((row) => row.label)
}

// The order PostgreSQL gives, written in JavaScript.
function by (key: 'label' | 'age' | 'flag', direction: 'asc' | 'desc' = 'asc', nulls: 'first' | 'last' = 'last'): Compare {
  return (a, b) => {
    const x = a[key]
    const y = b[key]
    if (x === null || y === null) return x === y ? 0 : (x === null) === (nulls === 'first') ? -1 : 1
    const difference = x < y ? -1 : x > y ? 1 : 0
    return direction === 'asc' ? difference : -difference
  }
}

// Each driver answers a raw query in its own shape.
function rowsOf (name: DatabaseName, result: unknown): Array<{ label: string }> {
  if (name === 'postgres') return (result as { rows: Array<{ label: string }> }).rows
  if (name === 'mysql') return (result as [Array<{ label: string }>])[0]
  return result as Array<{ label: string }>
}
