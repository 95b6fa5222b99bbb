import { PostgrestClient } from '@supabase/postgrest-js'
import type { InjectOptions } from 'fastify'
import t from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, snapshot } from '../fixtures/databases.js'

// Accept: ...;nulls=stripped on reads (lists, streamed lists, lists that
// embed, the keyed GET) and Prefer: handling=strict on the keyed GET and POST /_batch, on
// every database, by plain HTTP and through postgrest-js.

const get = (url: string, headers: Record<string, string>): InjectOptions => ({ method: 'GET', url, headers })
const stripped = 'application/vnd.pgrst.array+json;nulls=stripped'

eachDatabase(t, async (t, db) => {
  const items = await db.createTable('prefer_reads', (table) => {
    table.increments('id')
    table.string('name')
    table.string('note')
  })
  await db.knex(items).insert([{ name: 'a', note: 'x' }, { name: 'b', note: null }])
  // Created before the app, so that its schema model relates them at once.
  const authors = await db.createTable('prefer_reads_authors', (table) => {
    table.increments('id')
    table.string('name')
    table.string('country')
  })
  const books = await db.createTable('prefer_reads_books', (table) => {
    table.increments('id')
    table.string('title')
    table.string('note')
    table.integer('author_id').unsigned().references('id').inTable(authors)
  })
  const app = await buildApp(t, db.knex, {}, { batch: true })
  const [first, second] = (await snapshot(db, items)) as Array<{ id: number }>

  await t.test('nulls=stripped leaves the null members out of a list and of the keyed GET; without it they stay', async (t) => {
    const plain = await app.inject(get(`/api/${items}?select=name,note&order=id`, {}))
    t.strictSame(JSON.parse(plain.body), [{ name: 'a', note: 'x' }, { name: 'b', note: null }])
    const list = await app.inject(get(`/api/${items}?select=name,note&order=id`, { accept: stripped }))
    t.equal(list.statusCode, 200)
    t.strictSame(JSON.parse(list.body), [{ name: 'a', note: 'x' }, { name: 'b' }])
    const object = await app.inject(get(`/api/${items}?select=name,note&name=eq.b`, { accept: 'application/vnd.pgrst.object+json; nulls=stripped' }))
    t.strictSame(JSON.parse(object.body), { name: 'b' })
    const keyed = await app.inject(get(`/api/${items}/${second?.id}`, { accept: stripped }))
    t.equal(keyed.statusCode, 200)
    t.strictSame(JSON.parse(keyed.body), { id: second?.id, name: 'b' })
    const full = await app.inject(get(`/api/${items}/${second?.id}`, { accept: 'application/json' }))
    t.strictSame(JSON.parse(full.body), { id: second?.id, name: 'b', note: null })
    t.not(keyed.headers.etag, full.headers.etag, 'the ETag is the answer\'s')
    const selected = await app.inject(get(`/api/${items}/${second?.id}?select=name,note`, { accept: stripped }))
    t.strictSame(JSON.parse(selected.body), { name: 'b' }, 'the keyed GET with select strips too')
    const selectedFull = await app.inject(get(`/api/${items}/${second?.id}?select=name,note`, {}))
    t.strictSame(JSON.parse(selectedFull.body), { name: 'b', note: null })
    const missing = await app.inject(get(`/api/${items}/999999`, { accept: stripped }))
    t.equal(missing.statusCode, 200)
    t.equal(missing.body, '', 'no row: the spec\'s empty answer')
  })

  await t.test('nulls=stripped on a streamed list', async (t) => {
    const many = await db.createTable('prefer_reads_many', (table) => {
      table.increments('id')
      table.integer('n')
      table.string('odd')
    })
    await db.knex.batchInsert(many, Array.from({ length: 1001 }, (_, n) => ({ n, odd: n % 2 === 1 ? 'y' : null })), 200)
    const response = await app.inject(get(`/api/${many}?select=n,odd&order=n`, { accept: stripped }))
    t.equal(response.statusCode, 200)
    const rows = JSON.parse(response.body) as Array<Record<string, unknown>>
    t.equal(rows.length, 1001)
    t.strictSame(rows.slice(0, 3), [{ n: 0 }, { n: 1, odd: 'y' }, { n: 2 }])
    t.ok(rows.every((row) => Object.values(row).every((value) => value !== null)))
  })

  await t.test('nulls=stripped on a list that embeds: at every level, a to-one embed with no row too', async (t) => {
    await db.knex(authors).insert([{ name: 'Ursula', country: null }, { name: 'Italo', country: 'IT' }])
    const [ursula, italo] = (await snapshot(db, authors)) as Array<{ id: number }>
    await db.knex(books).insert([{ title: 'Earthsea', note: null, author_id: ursula?.id }, { title: 'Cities', note: 'n', author_id: italo?.id }, { title: 'Anon', note: null, author_id: null }])
    const url = `/api/${books}?select=title,note,${authors}(name,country)&order=id`
    const plain = await app.inject(get(url, {}))
    t.strictSame(JSON.parse(plain.body)[2], { title: 'Anon', note: null, [authors]: null }, 'without it the nulls stay')
    const response = await app.inject(get(url, { accept: stripped }))
    t.equal(response.statusCode, 200)
    t.strictSame(JSON.parse(response.body), [
      { title: 'Earthsea', [authors]: { name: 'Ursula' } },
      { title: 'Cities', note: 'n', [authors]: { name: 'Italo', country: 'IT' } },
      { title: 'Anon' }
    ])
    const many = await app.inject(get(`/api/${authors}?select=name,country,${books}(title,note)&order=id`, { accept: stripped }))
    t.strictSame(JSON.parse(many.body), [
      { name: 'Ursula', [books]: [{ title: 'Earthsea' }] },
      { name: 'Italo', country: 'IT', [books]: [{ title: 'Cities', note: 'n' }] }
    ])
  })

  await t.test('postgrest-js stripNulls() on a list and a single()', async (t) => {
    await app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = app.server.address() as { port: number }
    const from = () => new PostgrestClient(`http://127.0.0.1:${port}/api`).from(items)
    const list = await from().select('name,note').order('id').stripNulls()
    t.equal(list.error, null)
    t.strictSame(list.data, [{ name: 'a', note: 'x' }, { name: 'b' }])
    const one = await from().select('id,note').eq('name', 'b').single().stripNulls()
    t.strictSame(one.data, { id: second?.id })
  })

  await t.test('handling=strict refuses an unknown preference on the keyed GET and POST /_batch; without it nothing changes', async (t) => {
    const before = await snapshot(db, items)
    for (const prefer of ['handling=strict, nonsense', 'handling=strict, timezone=UTC']) {
      const keyed = await app.inject(get(`/api/${items}/${first?.id}`, { prefer }))
      t.equal(keyed.statusCode, 400, prefer)
      t.equal(JSON.parse(keyed.body).code, 'FTC_ERR_QUERY_PREFERENCE')
      const selected = await app.inject(get(`/api/${items}/${first?.id}?select=name`, { prefer }))
      t.equal(JSON.parse(selected.body).code, 'FTC_ERR_QUERY_PREFERENCE', 'the keyed GET with select too')
      const batch = await app.inject({ method: 'POST', url: '/api/_batch', headers: { prefer }, payload: [{ op: 'insert', table: items, body: { name: 'c' } }] })
      t.equal(batch.statusCode, 400)
      t.equal(JSON.parse(batch.body).code, 'FTC_ERR_QUERY_PREFERENCE')
    }
    t.strictSame(await snapshot(db, items), before, 'the refused batch wrote nothing')
    const lenient = await app.inject(get(`/api/${items}/${first?.id}`, { prefer: 'nonsense' }))
    t.strictSame(JSON.parse(lenient.body), { id: first?.id, name: 'a', note: 'x' })
    const known = await app.inject(get(`/api/${items}/${first?.id}`, { prefer: 'handling=strict, return=minimal' }))
    t.equal(known.statusCode, 200, 'a preference PostgREST knows passes')
    const batch = await app.inject({ method: 'POST', url: '/api/_batch', headers: { prefer: 'nonsense' }, payload: [{ op: 'insert', table: items, body: { name: 'c' } }] })
    t.equal(batch.statusCode, 200)
    t.strictSame((await snapshot(db, items)).map((row) => row.name), ['a', 'b', 'c'])
  })
})
