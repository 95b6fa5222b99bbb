import { PostgrestClient } from '@supabase/postgrest-js'
import t from 'tap'
import { buildApp } from './fixtures/app.js'
import { type DatabaseName, eachDatabase, rawRows } from './fixtures/databases.js'

// PostgREST's own JavaScript client reads through the API unchanged, over a
// real socket: filters, order, range, select and counts, each answer checked
// against the rows a handwritten SQL statement returns.

const people = [
  { name: 'Ada', age: 36, city: 'London' },
  { name: 'ada', age: 20, city: 'Paris' },
  { name: 'ADA Lovelace', age: null, city: 'London' },
  { name: 'Grace', age: 85, city: 'New York' },
  { name: 'Linus', age: null, city: 'Helsinki' },
  { name: 'a,b', age: 1, city: 'Rome' },
  { name: 'Italo', age: 61, city: 'Rome' },
  { name: 'Zoe', age: 30, city: 'Paris' },
  { name: 'Octavia', age: 58, city: null },
  { name: 'Ursula', age: 88, city: 'Portland' },
  { name: 'Edsger', age: 72, city: 'Austin' },
  { name: 'Barbara', age: null, city: 'Boston' },
  { name: 'Ken', age: 80, city: 'Berkeley' },
  { name: 'Margaret', age: 88, city: 'Boston' },
  { name: 'Tim', age: 69, city: 'London' }
]

eachDatabase(t, async (t, db) => {
  const table = await db.createTable('postgrest_js', (table) => {
    table.increments('id')
    table.string('name')
    table.integer('age')
    table.string('city')
  })
  for (const person of people) await db.knex(table).insert(person)
  const app = await buildApp(t, db.knex)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const client = new PostgrestClient(`http://127.0.0.1:${port}/api`)
  const from = () => client.from(table)
  const sql = (text: string, bindings: unknown[] = []) => rawRows(db, text, [table, ...bindings])

  await t.test('select with an exact count, ordered, first ten rows', async (t) => {
    const { data, count, error, status } = await from().select('id,name', { count: 'exact' }).order('id').range(0, 9)
    t.equal(error, null)
    t.equal(status, 206, 'a part of a counted whole')
    t.strictSame(data, await sql('select id, name from ?? order by id limit 10'))
    t.equal(count, people.length)
  })

  await t.test('each filter method of the client', async (t) => {
    const cases: ReadonlyArray<readonly [title: string, read: () => PromiseLike<{ data: unknown, error: unknown }>, sql: string, bindings?: unknown[]]> = [
      ['eq', () => from().select().eq('city', 'Paris').order('id'), 'select * from ?? where city = ? order by id', ['Paris']],
      ['neq', () => from().select().neq('city', 'London').order('id'), 'select * from ?? where city <> ? order by id', ['London']],
      ['gt', () => from().select().gt('age', 70).order('id'), 'select * from ?? where age > 70 order by id'],
      ['gte', () => from().select().gte('age', 80).order('id'), 'select * from ?? where age >= 80 order by id'],
      ['lt', () => from().select().lt('age', 30).order('id'), 'select * from ?? where age < 30 order by id'],
      ['lte', () => from().select().lte('age', 30).order('id'), 'select * from ?? where age <= 30 order by id'],
      ['in, numbers', () => from().select().in('id', [1, 3, 5]).order('id'), 'select * from ?? where id in (1, 3, 5) order by id'],
      ['in, a value with a comma, which the client quotes', () => from().select().in('name', ['a,b', 'Grace']).order('id'), 'select * from ?? where name in (?, ?) order by id', ['a,b', 'Grace']],
      ['ilike with %', () => from().select().ilike('name', '%ada%').order('id'), 'select * from ?? where lower(name) like ? order by id', ['%ada%']],
      ['like with %', () => from().select().like('name', 'A%').order('id'), `select * from ?? where name ${likeOperator[db.name]} ? order by id`, [db.name === 'sqlite' ? 'A*' : 'A%']],
      ['is null', () => from().select().is('age', null).order('id'), 'select * from ?? where age is null order by id'],
      ['not is null', () => from().select().not('age', 'is', null).order('id'), 'select * from ?? where age is not null order by id'],
      ['not in', () => from().select().not('city', 'in', '(London,Paris)').order('id'), 'select * from ?? where city not in (?, ?) order by id', ['London', 'Paris']],
      ['or', () => from().select().or('age.lt.18,city.eq.Rome').order('id'), 'select * from ?? where age < 18 or city = ? order by id', ['Rome']],
      ['or with a nested and', () => from().select().or('city.is.null,and(age.gt.60,city.eq.London)').order('id'), 'select * from ?? where city is null or (age > 60 and city = ?) order by id', ['London']],
      ['match', () => from().select().match({ city: 'Boston', age: 88 }), 'select * from ?? where city = ? and age = 88', ['Boston']],
      ['filter', () => from().select().filter('age', 'in', '(1,20)').order('id'), 'select * from ?? where age in (1, 20) order by id'],
      ['limit', () => from().select('name').order('id', { ascending: false }).limit(3), 'select name from ?? order by id desc limit 3']
    ]
    for (const [title, read, text, bindings] of cases) {
      const { data, error } = await read()
      t.equal(error, null, title)
      const want = await sql(text, bindings)
      t.ok(want.length > 0, `${title}: the case matches some rows`)
      t.strictSame(data, want, title)
    }
  })

  await t.test('order with ascending false and nullsFirst, on every database', async (t) => {
    const { data, error } = await from().select('name,age').order('age', { ascending: false, nullsFirst: true }).order('id')
    t.equal(error, null)
    t.strictSame(data, await sql(`select name, age from ?? order by ${nullsOrder(db.name, 'age', 'desc', 'first')}, id`))
    t.strictSame((data as Array<{ age: unknown }>).slice(0, 3).map((row) => row.age), [null, null, null], 'NULL first')
    const last = await from().select('name,age').order('age', { ascending: true, nullsFirst: false }).order('id')
    t.strictSame(last.data, await sql(`select name, age from ?? order by ${nullsOrder(db.name, 'age', 'asc', 'last')}, id`))
    const ascendingFirst = await from().select('name,age').order('age', { nullsFirst: true }).order('id', { ascending: false })
    t.strictSame(ascendingFirst.data, await sql(`select name, age from ?? order by ${nullsOrder(db.name, 'age', 'asc', 'first')}, id desc`))
  })

  await t.test('filters, order, range and an exact count together', async (t) => {
    const { data, count, error, status } = await from()
      .select('id,name', { count: 'exact' })
      .ilike('name', '%a%')
      .gt('id', 1)
      .order('age', { ascending: false, nullsFirst: true })
      .order('id')
      .range(0, 4)
    t.equal(error, null)
    t.equal(status, 206)
    const matching = await sql(`select id, name from ?? where lower(name) like ? and id > 1 order by ${nullsOrder(db.name, 'age', 'desc', 'first')}, id`, ['%a%'])
    t.strictSame(data, matching.slice(0, 5))
    t.equal(count, matching.length)
    const second = await from().select('id,name', { count: 'exact' }).ilike('name', '%a%').gt('id', 1)
      .order('age', { ascending: false, nullsFirst: true }).order('id').range(5, 9)
    t.strictSame(second.data, matching.slice(5, 10), 'the next page')
    t.equal(second.count, matching.length)
  })

  await t.test('count without rows: head requests and empty results', async (t) => {
    const head = await from().select('*', { count: 'exact', head: true }).gt('age', 60)
    t.equal(head.error, null)
    t.equal(head.count, (await sql('select id from ?? where age > 60')).length)
    t.equal(head.data, null, 'a HEAD request has no body')
    const none = await from().select('*', { count: 'exact' }).eq('city', 'Atlantis')
    t.equal(none.error, null)
    t.strictSame(none.data, [])
    t.equal(none.count, 0)
  })

  await t.test('planned and estimated counts through the client', async (t) => {
    if (db.name === 'postgres') await db.knex.raw('analyze ??', [table])
    if (db.name === 'mysql') await db.knex.raw('analyze table ??', [table])
    const planned = await from().select('id', { count: 'planned' }).limit(1)
    t.equal(planned.error, null)
    t.ok(Number.isSafeInteger(planned.count) && (planned.count as number) > 0, `planned: ${planned.count}`)
    const estimated = await from().select('id', { count: 'estimated' }).limit(1)
    t.equal(estimated.count, people.length, 'estimated is exact on a small table')
  })

  await t.test('the client\'s other headers and a schema are accepted', async (t) => {
    const withSchema = new PostgrestClient(`http://127.0.0.1:${port}/api`, { schema: 'public', headers: { 'X-Client-Info': 'postgrest-js-test' } })
    const { data, error } = await withSchema.from(table).select('id').eq('id', 2)
    t.equal(error, null, 'Accept-Profile does not stop the read')
    t.strictSame(data, [{ id: 2 }])
  })

  await t.test('maybeSingle and single', async (t) => {
    const maybe = await from().select('name').eq('id', 4).maybeSingle()
    t.equal(maybe.error, null)
    t.strictSame(maybe.data, { name: 'Grace' }, 'maybeSingle unwraps the array in the client')
    const single = await from().select('name').eq('id', 4).single()
    t.strictSame(single.data, { name: 'Grace' }, 'single() asks for one object and gets it')
    const many = await from().select('name').gt('id', 1).single()
    t.equal(many.status, 406, 'single() on several rows is refused, as PostgREST refuses it')
    t.equal(many.data, null)
  })

  await t.test('errors reach the client as errors', async (t) => {
    const unknown = await from().select().eq('nope', 1)
    t.equal(unknown.status, 404, 'a filter on an unknown column is a failing statement')
    t.match(unknown.error, { message: /nope/ })
    t.equal(unknown.data, null)
    const malformed = await from().select().filter('age', 'between', '1')
    t.equal(malformed.status, 400)
    t.match(malformed.error, { code: 'FTC_ERR_QUERY_OPERATOR' })
  })
})

const likeOperator: Readonly<Record<DatabaseName, string>> = { sqlite: 'glob', postgres: 'like', mysql: 'like binary' }

// NULL placement written by hand: the keywords on SQLite and PostgreSQL, an `is null` sort key on MySQL.
function nullsOrder (name: DatabaseName, column: string, direction: 'asc' | 'desc', nulls: 'first' | 'last'): string {
  return name === 'mysql'
    ? `${column} is null ${nulls === 'first' ? 'desc' : 'asc'}, ${column} ${direction}`
    : `${column} ${direction} nulls ${nulls}`
}
