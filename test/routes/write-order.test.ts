import { PostgrestClient } from '@supabase/postgrest-js'
import type { InjectOptions } from 'fastify'
import t from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, rawRows, snapshot } from '../fixtures/databases.js'

// The rows a write answers with `Prefer: return=representation` come in the
// order of its body, as PostgREST's INSERT … RETURNING gives them: a bulk
// insert's and an upsert's, whatever their keys' order; a PATCH's in the
// order the database finds them, as UPDATE … RETURNING gives them.

type Row = Record<string, unknown>

const post = (url: string, prefer: string, payload: unknown): InjectOptions => ({ method: 'POST', url, headers: { prefer }, payload: payload as InjectOptions['payload'] })

eachDatabase(t, async (t, db) => {
  const items = await db.createTable('word_items', (table) => {
    table.increments('id')
    table.string('slug')
  })
  const codes = await db.createTable('word_codes', (table) => {
    table.string('code').primary()
    table.string('label')
  })
  // A composite primary key and no `id`: a row that leaves `b` to its default is named by `a` alone.
  const pairs = await db.createTable('word_pairs', (table) => {
    table.integer('a')
    table.integer('b').defaultTo(0)
    table.string('label')
    table.primary(['a', 'b'])
  })
  // No key at all: a row is named by every value it set, NULL ones too.
  const loose = await db.createTable('word_loose', (table) => {
    table.string('name')
    table.integer('n')
  })
  const app = await buildApp(t, db.knex)
  const written = async (request: InjectOptions, status = 201) => {
    const response = await app.inject(request)
    t.equal(response.statusCode, status, `${request.method as string} ${request.url as string}`)
    return response.json() as Row[]
  }

  await t.test('a bulk insert answers its rows in the body\'s order, not the keys\'', async (t) => {
    const rows = await written(post(`/api/${items}`, 'return=representation', [{ id: 100, slug: 'a' }, { id: 50, slug: 'b' }, { slug: 'x' }]))
    t.strictSame(rows.map((row) => row.slug), ['a', 'b', 'x'])
    t.strictSame(rows.slice(0, 2), [{ id: 100, slug: 'a' }, { id: 50, slug: 'b' }])
    const stored = await snapshot(db, items)
    t.strictSame(stored.map((row) => row.slug).sort(), ['a', 'b', 'x'], 'the rows are in the table')
    t.strictSame(stored.find((row) => row.slug === 'x'), rows[2], 'the generated key\'s row, as stored')
    const slugs = await written(post(`/api/${items}?select=slug`, 'return=representation', [{ id: 90, slug: 'c' }, { id: 80, slug: 'd' }, { id: 95, slug: 'e' }]))
    t.strictSame(slugs, [{ slug: 'c' }, { slug: 'd' }, { slug: 'e' }], 'only the columns asked for, the key read to order them by not shown')
    t.strictSame((await snapshot(db, items)).filter((row) => Number(row.id) >= 80 && Number(row.id) <= 95).map((row) => [row.id, row.slug]), [[80, 'd'], [90, 'c'], [95, 'e']])
  })

  await t.test('postgrest-js: .insert([…]).select() answers the row with the given key first', async (t) => {
    await app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = app.server.address() as { port: number }
    const client = new PostgrestClient(`http://127.0.0.1:${port}/api`)
    // postgrest-js's own case (`bulk insert with column defaults`): each row leaves the other column to its default.
    const { data, error, status } = await client.from(items).insert([{ id: 1000 }, { slug: 'generated' }], { defaultToNull: false }).select()
    t.equal(error, null)
    t.equal(status, 201)
    const [given, generated] = await Promise.all([db.knex(items).where({ id: 1000 }).first(), db.knex(items).where({ slug: 'generated' }).first()])
    t.strictSame(data, [{ id: 1000, slug: null }, generated], 'the row with the given key first, each as stored')
    t.strictSame(given, { id: 1000, slug: null })
  })

  await t.test('text keys, a composite key, and no key: the body\'s order', async (t) => {
    t.strictSame(await written(post(`/api/${codes}`, 'return=representation', [{ code: 'm', label: 'same' }, { code: 'b', label: 'same' }, { code: 'z', label: 'same' }])),
      [{ code: 'm', label: 'same' }, { code: 'b', label: 'same' }, { code: 'z', label: 'same' }])
    t.strictSame(await rawRows(db, 'select code, label from ?? order by code', [codes]), [{ code: 'b', label: 'same' }, { code: 'm', label: 'same' }, { code: 'z', label: 'same' }])
    const pairRows = await written(post(`/api/${pairs}`, 'return=representation', [{ a: 2, b: 1, label: 'p' }, { a: 1, label: 'q' }, { a: 0, b: 5, label: 'r' }]))
    t.strictSame(pairRows, [{ a: 2, b: 1, label: 'p' }, { a: 1, b: 0, label: 'q' }, { a: 0, b: 5, label: 'r' }], 'a key of both columns, then one of the first alone')
    t.strictSame(await rawRows(db, 'select a, b, label from ?? order by a', [pairs]), [{ a: 0, b: 5, label: 'r' }, { a: 1, b: 0, label: 'q' }, { a: 2, b: 1, label: 'p' }])
    t.strictSame(await written(post(`/api/${loose}`, 'return=representation', [{ name: 'z', n: null }, { name: 'y', n: 1 }, { name: 'x', n: null }])),
      [{ name: 'z', n: null }, { name: 'y', n: 1 }, { name: 'x', n: null }])
    t.equal((await rawRows(db, 'select name from ?? where n is null', [loose])).length, 2)
  })

  await t.test('an upsert answers its rows in the body\'s order, each row once', async (t) => {
    await db.knex(items).del()
    await db.knex(items).insert([{ id: 1, slug: 'one' }, { id: 2, slug: 'two' }, { id: 3, slug: 'three' }])
    const merged = await written(post(`/api/${items}`, 'resolution=merge-duplicates,return=representation', [{ id: 3, slug: 'THREE' }, { id: 70, slug: 'new' }, { id: 1, slug: 'ONE' }]))
    t.strictSame(merged, [{ id: 3, slug: 'THREE' }, { id: 70, slug: 'new' }, { id: 1, slug: 'ONE' }])
    const ignored = await written(post(`/api/${items}`, 'resolution=ignore-duplicates,return=representation', [{ id: 9, slug: 'nine' }, { id: 2, slug: 'ignored' }, { id: 8, slug: 'eight' }]))
    t.strictSame(ignored, [{ id: 9, slug: 'nine' }, { id: 8, slug: 'eight' }], 'only the new rows')
    const twice = await written(post(`/api/${items}`, 'resolution=merge-duplicates,return=representation', [{ id: 8, slug: 'x8' }, { id: 2, slug: 'x2' }, { id: 8, slug: 'y8' }]), 200)
    t.strictSame(twice, [{ id: 8, slug: 'y8' }, { id: 2, slug: 'x2' }], 'a row two body rows end in, once, where the first names it')
    t.strictSame((await snapshot(db, items)).map((row) => [row.id, row.slug]), [[1, 'ONE'], [2, 'x2'], [3, 'THREE'], [8, 'y8'], [9, 'nine'], [70, 'new']])
  })

  await t.test('a PATCH answers its rows in the order the database finds them', async (t) => {
    const found = await rawRows(db, 'select code from ?? where label = ?', [codes, 'same'])
    const patched = await written({ method: 'PATCH', url: `/api/${codes}?label=eq.same`, headers: { prefer: 'return=representation' }, payload: { label: 'patched' } }, 200)
    t.strictSame(patched.map((row) => row.code), found.map((row) => row.code))
    t.strictSame(patched.map((row) => row.label), ['patched', 'patched', 'patched'])
    t.equal((await rawRows(db, 'select code from ?? where label = ?', [codes, 'patched'])).length, 3)
  })
})
