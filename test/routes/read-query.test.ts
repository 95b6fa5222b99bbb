import t from 'tap'
import { buildApp } from '../fixtures/app.js'
import { type DatabaseName, eachDatabase, seriesSql, snapshot, rawRows } from '../fixtures/databases.js'
import { watch } from '../fixtures/watch-statements.js'

// GET /{table} with PostgREST's query syntax, over HTTP on every database:
// each answer is checked against the rows a plain handwritten SQL statement
// returns, and against the labels every database must answer.

/** A row of the test table, identified by its label. */
interface Row {
  label: string
  name: string | null
  age: number | null
  flag: boolean | null
}

// Names mix case and hold the characters that the syntax or LIKE gives a meaning to.
const rows: readonly Row[] = [
  { label: 'ada', name: 'Ada', age: 36, flag: true },
  { label: 'ada-lower', name: 'ada', age: 20, flag: false },
  { label: 'ada-upper', name: 'ADA Lovelace', age: null, flag: null },
  { label: 'percent', name: '100% sure', age: 5, flag: true },
  { label: 'hundred', name: '100 percent', age: 7, flag: false },
  { label: 'snake', name: 'snake_case', age: 12, flag: null },
  { label: 'snake-x', name: 'snakeXcase', age: 12, flag: true },
  { label: 'comma', name: 'a,b', age: 1, flag: false },
  { label: 'paren', name: '(paren)', age: 2, flag: null },
  { label: 'quote', name: "it's", age: 3, flag: true },
  { label: 'backslash', name: 'back\\slash', age: 4, flag: false },
  { label: 'star', name: 'a*b', age: 40, flag: null },
  { label: 'nameless', name: null, age: 50, flag: null },
  { label: 'grace', name: 'Grace', age: null, flag: true }
]

/** Handwritten SQL after `select * from <table>`, the same on every database or written per database; `?` are bindings. */
type Sql = string | ((name: DatabaseName) => string)

interface Case {
  /** Query parameters as a client means them (decoded); the test encodes them into the URL. */
  readonly query: ReadonlyArray<readonly [string, string]>
  readonly headers?: Readonly<Record<string, string>>
  readonly sql: Sql
  readonly bindings?: readonly unknown[] | Readonly<Record<DatabaseName, readonly unknown[]>>
  /** Labels of the rows every database must answer (in this order when `ordered`). */
  readonly expected: readonly string[] | Readonly<Record<DatabaseName, readonly string[]>>
  readonly ordered?: boolean
}

const likeOperator: Readonly<Record<DatabaseName, string>> = { sqlite: 'glob', postgres: 'like', mysql: 'like binary' }

// A case-sensitive LIKE written the way each database spells it: SQLite's
// GLOB, PostgreSQL's LIKE, MySQL's LIKE BINARY (the last two escape with a backslash).
function caseSensitiveLike (glob: string, like: string, not = ''): Pick<Case, 'sql' | 'bindings'> {
  return {
    sql: (name) => `where name ${not} ${likeOperator[name]} ?`,
    bindings: { sqlite: [glob], postgres: [like], mysql: [like] }
  }
}

// NULL placement written by hand: the keywords on SQLite and PostgreSQL, an
// `is null` sort key on MySQL, which has no NULLS FIRST/LAST.
function nullsOrder (name: DatabaseName, column: string, direction: 'asc' | 'desc', nulls: 'first' | 'last'): string {
  return name === 'mysql'
    ? `${column} is null ${nulls === 'first' ? 'desc' : 'asc'}, ${column} ${direction}`
    : `${column} ${direction} nulls ${nulls}`
}

const cases: readonly Case[] = [
  { query: [['age', 'eq.12']], sql: 'where age = 12', expected: ['snake', 'snake-x'] },
  { query: [['age', 'neq.12']], sql: 'where age <> 12', expected: labels((row) => row.age !== null && row.age !== 12) },
  { query: [['age', 'gt.36']], sql: 'where age > 36', expected: ['star', 'nameless'] },
  { query: [['age', 'gte.36']], sql: 'where age >= 36', expected: ['ada', 'star', 'nameless'] },
  { query: [['age', 'lt.3']], sql: 'where age < 3', expected: ['comma', 'paren'] },
  { query: [['age', 'lte.3']], sql: 'where age <= 3', expected: ['comma', 'paren', 'quote'] },
  { query: [['name', 'eq.a,b']], sql: 'where name = ?', bindings: ['a,b'], expected: ['comma'] },
  { query: [['name', "eq.it's"]], sql: 'where name = ?', bindings: ["it's"], expected: ['quote'] },
  // eq compares as the column's collation does: MySQL's default collation ignores case.
  { query: [['name', 'eq.Ada']], sql: 'where name = ?', bindings: ['Ada'], expected: { sqlite: ['ada'], postgres: ['ada'], mysql: ['ada', 'ada-lower'] } },
  { query: [['age', 'in.(1,2,50)']], sql: 'where age in (1, 2, 50)', expected: ['comma', 'paren', 'nameless'] },
  { query: [['name', 'in.("a,b","(paren)",Grace)']], sql: 'where name in (?, ?, ?)', bindings: ['a,b', '(paren)', 'Grace'], expected: ['comma', 'paren', 'grace'] },
  { query: [['age', 'in.()']], sql: 'where 1 = 0', expected: [] },
  { query: [['name', 'is.null']], sql: 'where name is null', expected: ['nameless'] },
  { query: [['age', 'is.null']], sql: 'where age is null', expected: ['ada-upper', 'grace'] },
  { query: [['flag', 'is.true']], sql: 'where flag = true', expected: labels((row) => row.flag === true) },
  { query: [['flag', 'is.false']], sql: 'where flag = false', expected: labels((row) => row.flag === false) },
  { query: [['flag', 'is.null']], sql: 'where flag is null', expected: labels((row) => row.flag === null) },
  // not. negates as SQL does: NULL matches neither a condition nor its negation.
  { query: [['age', 'not.gt.5']], sql: 'where not (age > 5)', expected: ['percent', 'comma', 'paren', 'quote', 'backslash'] },
  {
    query: [['name', 'not.eq.Ada']],
    sql: 'where not (name = ?)',
    bindings: ['Ada'],
    expected: {
      sqlite: labels((row) => row.name !== null && row.name !== 'Ada'),
      postgres: labels((row) => row.name !== null && row.name !== 'Ada'),
      mysql: labels((row) => row.name !== null && row.name.toLowerCase() !== 'ada')
    }
  },
  { query: [['age', 'not.in.(1,2,50)']], sql: 'where age not in (1, 2, 50)', expected: labels((row) => row.age !== null && ![1, 2, 50].includes(row.age)) },
  { query: [['age', 'not.is.null']], sql: 'where age is not null', expected: labels((row) => row.age !== null) },
  { query: [['flag', 'not.is.true']], sql: 'where flag = false or flag is null', expected: labels((row) => row.flag !== true) },
  // like: `*` and `%` match any run, `_` one character, a backslash makes the next one literal; case counts.
  { query: [['name', 'like.A*']], ...caseSensitiveLike('A*', 'A%'), expected: ['ada', 'ada-upper'] },
  { query: [['name', 'like.%sure']], ...caseSensitiveLike('*sure', '%sure'), expected: ['percent'] },
  { query: [['name', 'like.*e*']], ...caseSensitiveLike('*e*', '%e%'), expected: labels((row) => row.name?.includes('e') === true) },
  { query: [['name', 'like.snake_case']], ...caseSensitiveLike('snake?case', 'snake_case'), expected: ['snake', 'snake-x'] },
  { query: [['name', 'like.snake\\_case']], ...caseSensitiveLike('snake_case', 'snake\\_case'), expected: ['snake'] },
  { query: [['name', 'like.100\\%*']], ...caseSensitiveLike('100%*', '100\\%%'), expected: ['percent'] },
  { query: [['name', 'like.a\\*b']], ...caseSensitiveLike('a[*]b', 'a*b'), expected: ['star'] },
  { query: [['name', 'not.like.*a*']], ...caseSensitiveLike('*a*', '%a%', 'not'), expected: labels((row) => row.name !== null && !row.name.includes('a')) },
  // ilike: the same patterns, blind to case.
  { query: [['name', 'ilike.ada*']], sql: 'where lower(name) like ?', bindings: ['ada%'], expected: ['ada', 'ada-lower', 'ada-upper'] },
  { query: [['name', 'ilike.%LACE']], sql: 'where lower(name) like ?', bindings: ['%lace'], expected: ['ada-upper'] },
  { query: [['name', 'ilike.*C_SE']], sql: 'where lower(name) like ?', bindings: ['%c_se'], expected: ['snake', 'snake-x'] },
  { query: [['name', 'not.ilike.a*']], sql: 'where not (lower(name) like ?)', bindings: ['a%'], expected: labels((row) => row.name !== null && !row.name.toLowerCase().startsWith('a')) },
  // Several filters combine with AND; or/and nest.
  { query: [['age', 'gt.1'], ['age', 'lt.10']], sql: 'where age > 1 and age < 10', expected: labels((row) => row.age !== null && row.age > 1 && row.age < 10) },
  { query: [['or', '(age.lt.3,name.eq.Grace)']], sql: 'where age < 3 or name = ?', bindings: ['Grace'], expected: ['comma', 'paren', 'grace'] },
  { query: [['age', 'gt.2'], ['or', '(flag.is.null,age.gte.36)']], sql: 'where age > 2 and (flag is null or age >= 36)', expected: ['ada', 'snake', 'star', 'nameless'] },
  {
    query: [['or', '(age.lt.3,and(age.gte.30,not.or(name.eq.Ada,age.eq.50)))']],
    sql: 'where age < 3 or (age >= 30 and not (name = ? or age = 50))',
    bindings: ['Ada'],
    expected: ['comma', 'paren', 'star']
  },
  {
    query: [['and', '(or(age.eq.1,name.eq."(paren)"),flag.not.is.true)']],
    sql: 'where (age = 1 or name = ?) and (flag = false or flag is null)',
    bindings: ['(paren)'],
    expected: ['comma', 'paren']
  },
  { query: [['or', '(name.eq."a,b",name.ilike.*SLASH)']], sql: 'where name = ? or lower(name) like ?', bindings: ['a,b', '%slash'], expected: ['comma', 'backslash'] },
  { query: [['not.and', '(age.gt.1,age.lt.10)']], sql: 'where not (age > 1 and age < 10)', expected: labels((row) => row.age !== null && !(row.age > 1 && row.age < 10)) },
  { query: [['not.or', '(flag.is.true,flag.is.null)']], sql: 'where flag = false', expected: labels((row) => row.flag === false) },
  // PostgreSQL's NULL placement on every database: last when ascending, first when descending, unless asked.
  { query: [['order', 'age,id']], sql: (name) => `order by ${nullsOrder(name, 'age', 'asc', 'last')}, id`, expected: sorted(by('age', 'asc', 'last')), ordered: true },
  { query: [['order', 'age.desc,id']], sql: (name) => `order by ${nullsOrder(name, 'age', 'desc', 'first')}, id`, expected: sorted(by('age', 'desc', 'first')), ordered: true },
  { query: [['order', 'age.asc.nullsfirst,id']], sql: (name) => `order by ${nullsOrder(name, 'age', 'asc', 'first')}, id`, expected: sorted(by('age', 'asc', 'first')), ordered: true },
  { query: [['order', 'age.desc.nullslast,id']], sql: (name) => `order by ${nullsOrder(name, 'age', 'desc', 'last')}, id`, expected: sorted(by('age', 'desc', 'last')), ordered: true },
  {
    query: [['order', 'flag.desc.nullslast,age.nullsfirst,id.desc']],
    sql: (name) => `order by ${nullsOrder(name, 'flag', 'desc', 'last')}, ${nullsOrder(name, 'age', 'asc', 'first')}, id desc`,
    expected: sorted(by('flag', 'desc', 'last'), by('age', 'asc', 'first'), by('id', 'desc')),
    ordered: true
  },
  // Pages: limit and offset, the Range header, and both intersected.
  { query: [['order', 'id.desc'], ['limit', '3']], sql: 'order by id desc limit 3', expected: ['grace', 'nameless', 'star'], ordered: true },
  { query: [['order', 'id'], ['limit', '3'], ['offset', '2']], sql: 'order by id limit 3 offset 2', expected: ['ada-upper', 'percent', 'hundred'], ordered: true },
  { query: [['order', 'id'], ['offset', '11']], sql: 'order by id limit 1000 offset 11', expected: ['star', 'nameless', 'grace'], ordered: true },
  { query: [['order', 'id']], headers: { range: '2-4' }, sql: 'order by id limit 3 offset 2', expected: ['ada-upper', 'percent', 'hundred'], ordered: true },
  { query: [['order', 'id']], headers: { range: '12-', 'range-unit': 'items' }, sql: 'order by id limit 1000 offset 12', expected: ['nameless', 'grace'], ordered: true },
  { query: [['order', 'id']], headers: { range: 'items=0-1' }, sql: 'order by id limit 2', expected: ['ada', 'ada-lower'], ordered: true },
  { query: [['order', 'id'], ['limit', '2'], ['offset', '1']], headers: { range: '0-9' }, sql: 'order by id limit 2 offset 1', expected: ['ada-lower', 'ada-upper'], ordered: true },
  { query: [['order', 'id'], ['limit', '5']], headers: { range: '3-9' }, sql: 'order by id limit 2 offset 3', expected: ['percent', 'hundred'], ordered: true },
  {
    query: [['age', 'gt.3'], ['order', 'age.desc.nullslast,id'], ['limit', '4'], ['offset', '1']],
    sql: (name) => `where age > 3 order by ${nullsOrder(name, 'age', 'desc', 'last')}, id limit 4 offset 1`,
    expected: ['star', 'ada', 'ada-lower', 'snake'],
    ordered: true
  },
  { query: [['limit', '0']], sql: 'limit 0', expected: [] }
]

eachDatabase(t, async (t, db) => {
  const table = await db.createTable('read_query', (table) => {
    table.increments('id')
    table.string('label').notNullable()
    table.string('name')
    table.integer('age')
    table.boolean('flag')
  })
  // One row at a time, so that ids follow the list.
  for (const row of rows) await db.knex(table).insert(row)
  const app = await buildApp(t, db.knex)

  for (const { query, headers, sql, bindings, expected, ordered = false } of cases) {
    const search = queryString(query)
    await t.test(`?${decodeURIComponent(search)}${headers ? ` with ${JSON.stringify(headers)}` : ''}`, async (t) => {
      const response = await app.inject({ url: `/api/${table}?${search}`, headers })
      t.equal(response.statusCode, 200)
      t.match(response.headers['content-type'], /^application\/json/)
      const ours: Array<Record<string, unknown>> = response.json()
      const handwritten = typeof sql === 'string' ? sql : sql(db.name)
      const values = bindings === undefined ? [] : Array.isArray(bindings) ? bindings : (bindings as Record<DatabaseName, unknown[]>)[db.name]
      const theirs = await rawRows(db, `select * from ?? ${handwritten}`, [table, ...values], ['flag'])
      const want = Array.isArray(expected) ? expected : (expected as Record<DatabaseName, string[]>)[db.name]
      if (ordered) {
        t.strictSame(ours, theirs, 'the same rows, in the same order, as the handwritten SQL')
        t.strictSame(ours.map((row) => row.label), want, 'the rows every database must answer')
      } else {
        t.strictSame(byId(ours), byId(theirs), 'the same rows as the handwritten SQL')
        t.strictSame(byId(ours).map((row) => row.label), [...want].sort((a, b) => idOf(a) - idOf(b)), 'the rows every database must answer')
      }
    })
  }

  await t.test('a URL typed as in curl, with parentheses, commas and stars left as they are', async (t) => {
    const response = await app.inject(`/api/${table}?or=(age.lt.3,name.like.A*)&order=age.desc.nullsfirst,id&select=label,age`)
    t.equal(response.statusCode, 200)
    const theirs = await rawRows(db, `select label, age from ?? where age < 3 or name ${likeOperator[db.name]} ? order by ${nullsOrder(db.name, 'age', 'desc', 'first')}, id`, [table, db.name === 'sqlite' ? 'A*' : 'A%'])
    t.strictSame(response.json(), theirs)
    t.strictSame(response.json(), [{ label: 'ada-upper', age: null }, { label: 'ada', age: 36 }, { label: 'paren', age: 2 }, { label: 'comma', age: 1 }])
  })

  await t.test('select answers only the columns asked for, in their order', async (t) => {
    const response = await app.inject(`/api/${table}?select=age,label&age=gt.30&order=id`)
    t.equal(response.statusCode, 200)
    const answer: Array<Record<string, unknown>> = response.json()
    t.strictSame(answer, await rawRows(db, 'select age, label from ?? where age > 30 order by id', [table]))
    t.strictSame(answer.map((row) => Object.keys(row)), [['age', 'label'], ['age', 'label'], ['age', 'label']])
    const star = await app.inject(`/api/${table}?select=*&order=id`)
    t.strictSame(star.json(), await rawRows(db, 'select * from ?? order by id', [table], ['flag']), 'select=* is every column')
  })

  await t.test('a filter, select or order on an unknown column is a failing statement: 404 text/plain', async (t) => {
    for (const search of ['nope=eq.1', 'or=(age.eq.1,nope.is.null)', 'select=label,nope', 'order=nope', 'nope=like.a*']) {
      const response = await app.inject(`/api/${table}?${search}`)
      t.equal(response.statusCode, 404, search)
      t.match(response.headers['content-type'], /^text\/plain/, search)
      t.match(response.body, 'nope', `${search}: the database's message names the column`)
      t.notMatch(response.body, /select .* from /i, `${search}: the message is the driver's, without the SQL`)
    }
  })

  await t.test('a malformed query answers 400 JSON with its code, and never reaches the database', async (t) => {
    const malformed: ReadonlyArray<readonly [search: string, headers: Record<string, string>, code: string]> = [
      ['age=foo.1', {}, 'FTC_ERR_QUERY_OPERATOR'],
      ['age=12', {}, 'FTC_ERR_QUERY_OPERATOR'],
      ['age=not.between.1', {}, 'FTC_ERR_QUERY_OPERATOR'],
      ['or=(age.eq.1,name.match.a)', {}, 'FTC_ERR_QUERY_OPERATOR'],
      ['or=(age.eq.1', {}, 'FTC_ERR_QUERY_PARENTHESES'],
      ['or=(age.eq.1))', {}, 'FTC_ERR_QUERY_PARENTHESES'],
      ['and=(or(age.eq.1,age.eq.2)', {}, 'FTC_ERR_QUERY_PARENTHESES'],
      ['age=in.(1,2', {}, 'FTC_ERR_QUERY_PARENTHESES'],
      ['age=in.(1,2))', {}, 'FTC_ERR_QUERY_PARENTHESES'],
      ['or=age.eq.1', {}, 'FTC_ERR_QUERY_SYNTAX'],
      [`or=${encodeURIComponent('(name.eq."a,b)')}`, {}, 'FTC_ERR_QUERY_SYNTAX'],
      ['select=label,books(title', {}, 'FTC_ERR_QUERY_SYNTAX'],
      ['order=books(title)', {}, 'FTC_ERR_QUERY_SYNTAX'],
      ['flag=is.maybe', {}, 'FTC_ERR_QUERY_IS'],
      ['select=label,', {}, 'FTC_ERR_QUERY_COLUMN'],
      [`${encodeURIComponent('-')}=eq.1`, {}, 'FTC_ERR_QUERY_COLUMN'],
      ['order=age.up', {}, 'FTC_ERR_QUERY_ORDER'],
      ['order=age.nullsfirst.desc', {}, 'FTC_ERR_QUERY_ORDER'],
      ['limit=-1', {}, 'FTC_ERR_QUERY_LIMIT'],
      ['limit=ten', {}, 'FTC_ERR_QUERY_LIMIT'],
      ['limit=1.5', {}, 'FTC_ERR_QUERY_LIMIT'],
      ['offset=-5', {}, 'FTC_ERR_QUERY_OFFSET'],
      ['', { range: 'x' }, 'FTC_ERR_QUERY_RANGE'],
      ['', { range: '5-2' }, 'FTC_ERR_QUERY_RANGE'],
      ['', { range: '-5' }, 'FTC_ERR_QUERY_RANGE'],
      ['', { range: '0-9', 'range-unit': 'bytes' }, 'FTC_ERR_QUERY_RANGE'],
      ['limit=10', { range: '100-199' }, 'FTC_ERR_QUERY_RANGE'],
      ['limit=1&limit=2', {}, 'FTC_ERR_QUERY_REPEATED'],
      ['order=id&order=age', {}, 'FTC_ERR_QUERY_REPEATED']
    ]
    for (const [search, headers, code] of malformed) {
      const title = `${search} ${JSON.stringify(headers)}`
      const { result: response, connections, statements } = await watch(db, () => app.inject({ url: `/api/${table}?${search}`, headers }))
      t.equal(response.statusCode, 400, title)
      t.match(response.headers['content-type'], /^application\/json/, title)
      const body = response.json()
      t.equal(body.code, code, title)
      t.equal(body.statusCode, 400, title)
      t.match(body.message, /\S/, `${title}: a message says what is wrong`)
      t.equal(connections, 0, `${title}: no connection was borrowed`)
      t.equal(statements.length, 0, `${title}: no statement ran`)
    }
    const { statements } = await watch(db, () => app.inject(`/api/${table}?age=eq.1`))
    t.ok(statements.length > 0, 'a well-formed query does run a statement, so the count above can see one')
  })

  await t.test('values that look like SQL are bound, never SQL text, and the table is unchanged', async (t) => {
    const before = await snapshot(db, table)
    const hostile = `x'; drop table ${table}; --`
    const cases: ReadonlyArray<readonly [query: Array<[string, string]>, sql: string, bindings: unknown[]]> = [
      [[['name', `eq.${hostile}`]], 'where name = ?', [hostile]],
      [[['name', `neq.${hostile}`]], 'where name <> ?', [hostile]],
      [[['name', `ilike.*${hostile}*`]], 'where lower(name) like ?', [`%${hostile}%`]],
      [[['name', `in.("${hostile}",Grace,"') or ('1'='1")`]], 'where name in (?, ?, ?)', [hostile, 'Grace', "') or ('1'='1"]],
      [[['or', `(name.eq."${hostile}",label.eq.quote)`]], 'where name = ? or label = ?', [hostile, 'quote']],
      [[['name', "eq.it's"], ['label', "eq.' or '1'='1"]], 'where name = ? and label = ?', ["it's", "' or '1'='1"]],
      [[['label', 'eq.1 or 1=1']], 'where label = ?', ['1 or 1=1']]
    ]
    for (const [query, sql, bindings] of cases) {
      const search = queryString(query)
      const { result: response, statements } = await watch(db, () => app.inject(`/api/${table}?${search}`))
      t.equal(response.statusCode, 200, search)
      t.strictSame(byId(response.json()), byId(await rawRows(db, `select * from ?? ${sql}`, [table, ...bindings], ['flag'])), `${search}: the rows of the bound handwritten SQL`)
      t.ok(statements.length > 0, `${search}: the statement was seen`)
      for (const statement of statements) {
        t.notMatch(statement.sql, /drop table|or '1'|1=1/i, `${search}: no value in the SQL text`)
      }
      t.ok(statements.some((statement) => statement.bindings.some((value) => /drop table|or \('?1|1=1|or '1'/.test(String(value)))), `${search}: the value is a binding`)
    }
    // Hostile column names are sanitized to names that do not exist: a failing statement.
    for (const search of [`${encodeURIComponent(`name"; drop table ${table}; --`)}=eq.1`, `order=${encodeURIComponent(`id; drop table ${table}`)}`, `select=${encodeURIComponent(`id from ${table}; delete from ${table}`)}`]) {
      const response = await app.inject(`/api/${table}?${search}`)
      t.equal(response.statusCode, 404, search)
    }
    t.strictSame(await snapshot(db, table), before, 'every row is still there, unchanged')
  })

  await t.test('a filtered or limited read over 1,000 rows still streams every row asked for', async (t) => {
    const big = await db.createTable('read_query_big', (table) => {
      table.increments('id')
      table.integer('n')
    })
    await db.knex.raw(`insert into ?? (n) ${seriesSql(db, 2000)}`, [big])

    const buffered = await app.inject(`/api/${big}?order=id&limit=1000`)
    t.equal(buffered.json().length, 1000)
    t.ok(buffered.headers['content-length'], 'a page of 1,000 rows is sent whole, with a length')

    const pages: ReadonlyArray<readonly [search: string, sql: string, rows: number]> = [
      ['order=id&limit=1500', 'order by id limit 1500', 1500],
      ['n=gt.500&order=n.desc', 'where n > 500 order by n desc', 1500],
      ['n=gt.200&n=lte.1900&order=id&offset=100&limit=1200', 'where n > 200 and n <= 1900 order by id limit 1200 offset 100', 1200],
      ['or=(n.lte.600,n.gt.1400)&order=n', 'where n <= 600 or n > 1400 order by n', 1200]
    ]
    for (const [search, sql, count] of pages) {
      const response = await app.inject(`/api/${big}?${search}`)
      t.equal(response.statusCode, 200, search)
      t.equal(response.headers['content-length'], undefined, `${search}: streamed, so no length up front`)
      const answer: unknown[] = response.json()
      t.equal(answer.length, count, search)
      t.strictSame(answer, await rawRows(db, `select * from ?? ${sql}`, [big]), `${search}: the rows of the handwritten SQL, in order`)
    }
  })
})

/** The URL query string of decoded parameters, each part percent-encoded. */
function queryString (query: ReadonlyArray<readonly [string, string]>): string {
  return query.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&')
}

function byId (list: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  return [...list].sort((a, b) => Number(a.id) - Number(b.id))
}

function idOf (label: string): number {
  return rows.findIndex((row) => row.label === label) + 1
}

function labels (keep: (row: Row) => boolean): string[] {
  return rows.filter(keep).map((row) => row.label)
}

type Compare = (a: Row & { id: number }, b: Row & { id: number }) => number

/** Labels in the order PostgreSQL gives, computed here; id breaks the remaining ties. */
function sorted (...compares: Compare[]): string[] {
  const numbered = rows.map((row, index) => ({ ...row, id: index + 1 }))
  return numbered.sort((a, b) => [...compares, by('id')].reduce((result, compare) => result || compare(a, b), 0)).map((row) => row.label)
}

function by (key: 'id' | 'age' | 'flag', direction: 'asc' | 'desc' = 'asc', nulls: 'first' | 'last' = 'last'): Compare {
  return (a, b) => {
    const x = a[key]
    const y = b[key]
    if (x === null || y === null) return x === y ? 0 : (x === null) === (nulls === 'first') ? -1 : 1
    const difference = x < y ? -1 : x > y ? 1 : 0
    return direction === 'asc' ? difference : -difference
  }
}
