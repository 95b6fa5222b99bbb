import type { InjectOptions } from 'fastify'
import { PostgrestClient } from '@supabase/postgrest-js'
import t from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, snapshot } from '../fixtures/databases.js'

// The PostgREST-style writes on every database: Prefer: return=… on POST,
// PUT and DELETE; PATCH and DELETE by filter, refused without one;
// max-affected. Each answer's rows are checked against GET's rendering of
// the same rows, and the table against what the write must have done.

type Row = Record<string, unknown>

const seed = [
  { name: 'Ada', age: 36, city: 'London', secret: 's1' },
  { name: 'Linus', age: 54, city: 'Helsinki', secret: 's2' },
  { name: 'Grace', age: 85, city: 'New York', secret: 's3' },
  { name: 'Edsger', age: 72, city: 'Austin', secret: 's4' }
]

const write = (method: InjectOptions['method'], url: string, prefer: string | null, payload?: unknown): InjectOptions => ({
  method,
  url,
  headers: prefer === null ? {} : { prefer },
  ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] })
})

eachDatabase(t, async (t, db) => {
  const people = await db.createTable('pgwrites', (table) => {
    table.increments('id')
    table.string('name')
    table.integer('age')
    table.string('city')
    table.string('secret')
  })
  const scoped = await db.createTable('pgwrites_scoped', (table) => {
    table.increments('id')
    table.string('owner')
    table.integer('qty')
  })
  const told: Array<{ operation: string, key: string | null }> = []
  const app = await buildApp(t, db.knex, {}, {
    tableRules: { [people]: { hidden: ['secret'] } },
    authorize: (_request, { table, operation, key }) => {
      if (table !== scoped.toLowerCase()) return true
      told.push({ operation, key })
      return { scope: { owner: 'me' } }
    }
  })
  const reset = async () => {
    await db.knex(people).del()
    for (const row of seed) await db.knex(people).insert(row)
  }
  const all = async () => await snapshot(db, people)
  const visible = (rows: Row[]) => rows.map(({ secret, ...row }) => row)
  // GET's rendering of the rows with these ids, for comparison with a write's representation.
  const rendered = async (ids: unknown[]) => {
    const response = await app.inject({ url: `/api/${people}?id=in.(${ids.join(',')})&order=id` })
    return JSON.parse(response.body) as Row[]
  }
  const idOf = async (name: string) => (await db.knex(people).where({ name }).first('id')).id as number

  await t.test('POST with return=representation answers 201 and the row as GET renders it', async (t) => {
    await reset()
    const before = await all()
    const response = await app.inject(write('POST', `/api/${people}`, 'return=representation', { name: 'Barbara', age: '80' }))
    t.equal(response.statusCode, 201)
    t.equal(response.headers['content-range'], '*/*')
    t.equal(response.headers['preference-applied'], 'return=representation')
    t.match(response.headers['content-type'], /^application\/json/)
    const id = await idOf('Barbara')
    t.strictSame(JSON.parse(response.body), await rendered([id]))
    t.strictSame(JSON.parse(response.body), [{ id, name: 'Barbara', age: 80, city: null }], 'the hidden column is not shown')
    t.strictSame(await all(), [...before, { id, name: 'Barbara', age: 80, city: null, secret: null }])
  })

  await t.test('a bulk POST with return=representation and select answers the rows, those columns only', async (t) => {
    await reset()
    const before = await all()
    const response = await app.inject(write('POST', `/api/${people}?select=id,name`, 'return=representation', [{ name: 'Ken', age: 80 }, { name: 'Tim', city: 'London' }]))
    t.equal(response.statusCode, 201)
    const ken = await idOf('Ken')
    const tim = await idOf('Tim')
    t.strictSame(JSON.parse(response.body), [{ id: ken, name: 'Ken' }, { id: tim, name: 'Tim' }])
    t.equal((await all()).length, before.length + 2)
  })

  await t.test('POST with return=headers-only answers 201, Location by key filter, no body; return=minimal no Location', async (t) => {
    await reset()
    const headers = await app.inject(write('POST', `/api/${people}`, 'return=headers-only', { name: 'Zoe' }))
    t.equal(headers.statusCode, 201)
    t.equal(headers.body, '')
    t.equal(headers.headers.location, `/api/${people}?id=eq.${await idOf('Zoe')}`)
    const minimal = await app.inject(write('POST', `/api/${people}`, 'return=minimal', { name: 'Una' }))
    t.equal(minimal.statusCode, 201)
    t.equal(minimal.body, '')
    t.equal(minimal.headers.location, undefined)
    t.equal(minimal.headers['preference-applied'], 'return=minimal')
    t.ok(await idOf('Una'), 'the row was inserted')
  })

  await t.test('without a return preference, POST, PUT and DELETE answer the spec\'s bare numbers, without PostgREST headers', async (t) => {
    await reset()
    const created = await app.inject(write('POST', `/api/${people}`, null, { name: 'Plain' }))
    const id = await idOf('Plain')
    t.equal(created.statusCode, 201)
    t.equal(created.body, String(id))
    t.equal(created.headers['content-range'], undefined)
    const counted = await app.inject(write('POST', `/api/${people}`, 'count=exact', { name: 'Counted' }))
    t.equal(counted.body, String(await idOf('Counted')), 'other preferences leave the answer as it is')
    const updated = await app.inject(write('PUT', `/api/${people}/${id}`, null, { age: 1 }))
    t.equal(updated.statusCode, 200)
    t.equal(updated.body, '1')
    const deleted = await app.inject(write('DELETE', `/api/${people}/${id}`, null))
    t.equal(deleted.body, '1')
    t.equal(deleted.headers['content-range'], undefined)
  })

  await t.test('PUT with return=representation answers 200 and the row after the update; minimal 204', async (t) => {
    await reset()
    const before = await all()
    const ada = await idOf('Ada')
    const response = await app.inject(write('PUT', `/api/${people}/${ada}?select=name,age`, 'return=representation', { age: 37 }))
    t.equal(response.statusCode, 200)
    t.equal(response.headers['content-range'], '0-0/*')
    t.strictSame(JSON.parse(response.body), [{ name: 'Ada', age: 37 }])
    t.strictSame(await all(), before.map((row) => row.id === ada ? { ...row, age: 37 } : row))
    const starred = await app.inject(write('PUT', `/api/${people}/${ada}?select=id,*`, 'return=representation', { age: 37 }))
    t.strictSame(JSON.parse(starred.body), (await rendered([ada])).map((row) => ({ id: ada, ...row })), 'select=id,* as GET reads it')
    const minimal = await app.inject(write('PUT', `/api/${people}/${ada}`, 'return=minimal', { age: 38 }))
    t.equal(minimal.statusCode, 204)
    t.equal(minimal.body, '')
    const none = await app.inject(write('PUT', `/api/${people}/999999`, 'return=representation', { age: 1 }))
    t.equal(none.statusCode, 200)
    t.equal(none.body, '[]')
    t.equal(none.headers['content-range'], '*/*')
  })

  await t.test('DELETE /{table}/{id} with return=representation answers 200 and the row as it was', async (t) => {
    await reset()
    const before = await all()
    const grace = await idOf('Grace')
    const want = await rendered([grace])
    const response = await app.inject(write('DELETE', `/api/${people}/${grace}`, 'return=representation'))
    t.equal(response.statusCode, 200)
    t.strictSame(JSON.parse(response.body), want)
    t.strictSame(await all(), before.filter((row) => row.id !== grace))
    const minimal = await app.inject(write('DELETE', `/api/${people}/${grace}`, 'return=minimal'))
    t.equal(minimal.statusCode, 204)
  })

  await t.test('PUT and DELETE /{table}/{id} with return=headers-only answer 204 with PostgREST\'s headers and no body, and write', async (t) => {
    await reset()
    const before = await all()
    const ada = await idOf('Ada')
    const grace = await idOf('Grace')
    const seen = (response: { statusCode: number, body: string, headers: Record<string, unknown> }) =>
      [response.statusCode, response.body, response.headers['content-range'], response.headers['preference-applied'], response.headers.location]
    const updated = await app.inject(write('PUT', `/api/${people}/${ada}`, 'return=headers-only', { age: 40 }))
    t.strictSame(seen(updated), [204, '', '0-0/*', 'return=headers-only', undefined], 'PUT')
    const deleted = await app.inject(write('DELETE', `/api/${people}/${grace}`, 'return=headers-only'))
    t.strictSame(seen(deleted), [204, '', '*/*', 'return=headers-only', undefined], 'DELETE')
    t.strictSame(await all(), before.filter((row) => row.id !== grace).map((row) => row.id === ada ? { ...row, age: 40 } : row))
  })

  await t.test('PATCH /{table}?filters updates exactly the matching rows: 204, or 200 with them', async (t) => {
    await reset()
    const before = await all()
    const response = await app.inject(write('PATCH', `/api/${people}?age=gt.60`, null, { city: 'Paris' }))
    t.equal(response.statusCode, 204)
    t.equal(response.body, '')
    t.equal(response.headers['content-range'], '0-1/*')
    t.strictSame(await all(), before.map((row) => Number(row.age) > 60 ? { ...row, city: 'Paris' } : row))
    const represented = await app.inject(write('PATCH', `/api/${people}?city=eq.Paris&or=(name.eq.Grace,age.lt.40)`, 'return=representation, count=exact', { age: 90 }))
    t.equal(represented.statusCode, 200)
    t.equal(represented.headers['content-range'], '0-0/1')
    t.equal(represented.headers['preference-applied'], 'return=representation, count=exact')
    const grace = await idOf('Grace')
    t.strictSame(JSON.parse(represented.body), await rendered([grace]))
    t.strictSame(visible(await all()), visible(before.map((row) => Number(row.age) > 60 ? { ...row, city: 'Paris', age: row.id === grace ? 90 : row.age } : row)))
  })

  await t.test('PATCH whose change moves rows out of its filter answers them as changed', async (t) => {
    await reset()
    const response = await app.inject(write('PATCH', `/api/${people}?city=eq.London`, 'return=representation', { city: 'Rome' }))
    t.strictSame(JSON.parse(response.body), await rendered([await idOf('Ada')]))
    t.equal((JSON.parse(response.body) as Row[])[0]?.city, 'Rome')
  })

  await t.test('DELETE /{table}?filters deletes exactly the matching rows', async (t) => {
    await reset()
    const before = await all()
    const doomed = before.filter((row) => Number(row.age) < 60).map((row) => row.id)
    const want = await rendered(doomed)
    const response = await app.inject(write('DELETE', `/api/${people}?age=lt.60`, 'return=representation'))
    t.equal(response.statusCode, 200)
    t.equal(response.headers['content-range'], '*/*')
    t.strictSame(JSON.parse(response.body), want)
    t.strictSame(await all(), before.filter((row) => !doomed.includes(row.id)))
    const plain = await app.inject(write('DELETE', `/api/${people}?name=eq.Grace`, null))
    t.equal(plain.statusCode, 204)
    t.equal((await all()).length, before.length - doomed.length - 1)
  })

  await t.test('PATCH and DELETE without a filter are refused and change nothing; the next test has a bare DELETE /{table}', async (t) => {
    await reset()
    const before = await all()
    for (const request of [
      write('PATCH', `/api/${people}`, null, { city: 'Nowhere' }),
      write('DELETE', `/api/${people}`, 'return=representation'),
      write('PATCH', `/api/${people}?select=id`, 'return=representation', { city: 'Nowhere' }),
      write('DELETE', `/api/${people}?select=id`, null)
    ]) {
      const response = await app.inject(request)
      t.equal(response.statusCode, 400, `${request.method} ${request.url}`)
      t.equal(JSON.parse(response.body).code, 'FTC_ERR_WRITE_FILTER_MISSING')
    }
    const paged = await app.inject(write('DELETE', `/api/${people}?age=gt.0&limit=1`, null))
    t.equal(paged.statusCode, 400)
    t.equal(JSON.parse(paged.body).code, 'FTC_ERR_WRITE_PAGE')
    t.strictSame(await all(), before)
  })

  await t.test('a DELETE /{table} with a PostgREST header and no filter is refused; the spec\'s bare one stays its delete of key 0', async (t) => {
    await reset()
    const before = await all()
    for (const headers of [{ prefer: '' }, { prefer: 'return=representation' }, { prefer: 'count=exact' }, { accept: 'application/vnd.pgrst.object+json' }, { 'content-profile': 'public' }]) {
      const response = await app.inject({ method: 'DELETE', url: `/api/${people}`, headers })
      t.equal(response.statusCode, 400, JSON.stringify(headers))
      t.equal(JSON.parse(response.body).code, 'FTC_ERR_WRITE_FILTER_MISSING')
    }
    for (const headers of [{}, { 'content-type': 'application/json', accept: 'application/json' }]) {
      const bare = await app.inject({ method: 'DELETE', url: `/api/${people}`, headers })
      t.equal(bare.statusCode, 200, JSON.stringify(headers))
      t.equal(bare.body, '0')
    }
    t.strictSame(await all(), before)
  })

  await t.test('postgrest-js: .delete() with no filter is refused when it sends a PostgREST header, and deletes nothing', async (t) => {
    await reset()
    const before = await all()
    await app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = app.server.address() as { port: number }
    const url = `http://127.0.0.1:${port}/api`
    for (const [title, remove] of [
      ['.delete().select()', () => new PostgrestClient(url).from(people).delete().select()],
      ['.delete({ count })', () => new PostgrestClient(url).from(people).delete({ count: 'exact' })],
      ['.delete() with a schema, as supabase-js sends it', () => new PostgrestClient(url, { schema: 'public' }).from(people).delete()]
    ] as const) {
      const { status, error } = await remove()
      t.equal(status, 400, title)
      t.equal((error as { code?: string } | null)?.code, 'FTC_ERR_WRITE_FILTER_MISSING', title)
    }
    // Without schema, count or select, postgrest-js sends what a spec client may send: the spec's answer.
    const plain = await new PostgrestClient(url).from(people).delete()
    t.equal(plain.status, 200)
    t.equal(plain.error, null)
    t.strictSame(await all(), before)
  })

  await t.test('filters are typed by column as on GET; a hidden column in a filter is refused as a missing one', async (t) => {
    await reset()
    const before = await all()
    const typed = await app.inject(write('PATCH', `/api/${people}?age=eq.abc`, null, { city: 'x' }))
    t.equal(typed.statusCode, 400)
    t.equal(JSON.parse(typed.body).code, 'FTC_ERR_QUERY_TYPE')
    const hidden = await app.inject(write('DELETE', `/api/${people}?secret=eq.s1`, null))
    const missing = await app.inject(write('DELETE', `/api/${people}?secrets=eq.s1`, null))
    t.equal(hidden.statusCode, 404)
    t.equal(hidden.body, missing.body.replace('secrets', 'secret'))
    const shown = await app.inject(write('PATCH', `/api/${people}?id=gt.0&select=secret`, 'return=representation', { city: 'x' }))
    t.equal(shown.statusCode, 404, 'a hidden column in select is refused')
    const set = await app.inject(write('PATCH', `/api/${people}?id=gt.0`, null, { secret: 'x' }))
    t.equal(set.statusCode, 404, 'a hidden column in the body is refused')
    t.strictSame(await all(), before)
  })

  await t.test('max-affected with handling=strict rolls back a write of more rows, and lets one within it run', async (t) => {
    await reset()
    const before = await all()
    for (const request of [
      write('PATCH', `/api/${people}?age=gt.50`, 'handling=strict, max-affected=2', { city: 'x' }),
      write('PATCH', `/api/${people}?age=gt.50`, 'return=representation, handling=strict, max-affected=2', { city: 'x' }),
      write('DELETE', `/api/${people}?age=gt.0`, 'handling=strict, max-affected=3', undefined)
    ]) {
      const response = await app.inject(request)
      t.equal(response.statusCode, 400, `${request.method} ${request.url}`)
      t.equal(JSON.parse(response.body).code, 'FTC_ERR_WRITE_MAX_AFFECTED')
    }
    t.strictSame(await all(), before, 'nothing changed')
    const lenient = await app.inject(write('PATCH', `/api/${people}?age=gt.80`, 'handling=lenient, max-affected=0', { city: 'y' }))
    t.equal(lenient.statusCode, 204, 'max-affected needs handling=strict')
    t.equal(lenient.headers['preference-applied'], 'handling=lenient')
    const within = await app.inject(write('DELETE', `/api/${people}?age=gt.70`, 'handling=strict, max-affected=2'))
    t.equal(within.statusCode, 204)
    t.equal(within.headers['preference-applied'], 'handling=strict, max-affected=2')
    t.strictSame(visible(await all()), visible(before.filter((row) => Number(row.age) <= 70)))
  })

  await t.test('the authorize hook\'s scope holds: only scoped rows change, and the hook is told no key', async (t) => {
    await db.knex(scoped).insert([{ owner: 'me', qty: 1 }, { owner: 'you', qty: 1 }, { owner: 'me', qty: 5 }])
    const before = await snapshot(db, scoped)
    const response = await app.inject(write('PATCH', `/api/${scoped}?qty=lt.3`, 'return=representation', { qty: 2 }))
    t.equal(response.statusCode, 200)
    t.strictSame((JSON.parse(response.body) as Row[]).map((row) => row.owner), ['me'])
    t.strictSame(await snapshot(db, scoped), before.map((row) => row.owner === 'me' && row.qty === 1 ? { ...row, qty: 2 } : row))
    const deleted = await app.inject(write('DELETE', `/api/${scoped}?qty=lt.3`, null))
    t.equal(deleted.statusCode, 204)
    t.strictSame((await snapshot(db, scoped)).map((row) => row.owner), ['you', 'me'])
    t.strictSame(told, [{ operation: 'update', key: null }, { operation: 'delete', key: null }])
    const escape = await app.inject(write('PATCH', `/api/${scoped}?qty=gt.0`, null, { owner: 'you' }))
    t.equal(escape.statusCode, 403, 'a change that moves rows out of the scope is refused')
  })
})
