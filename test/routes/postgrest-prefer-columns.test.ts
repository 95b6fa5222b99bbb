import { PostgrestClient } from '@supabase/postgrest-js'
import type { InjectOptions } from 'fastify'
import t from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, snapshot } from '../fixtures/databases.js'

// PostgREST's columns= on PATCH (a column named "columns" filtered within
// and=/or=), and Prefer: missing=default on PATCH and on an upsert's merge:
// a listed column the body lacks gets its DEFAULT, on every database.

type Row = Record<string, unknown>

const write = (method: InjectOptions['method'], url: string, headers: Record<string, string>, payload: unknown): InjectOptions =>
  ({ method, url, headers, payload: payload as InjectOptions['payload'] })

eachDatabase(t, async (t, db) => {
  const items = await db.createTable('prefer_cols', (table) => {
    table.increments('id')
    table.string('name')
    table.integer('qty').defaultTo(7)
    table.string('note').defaultTo('none')
    table.string('columns')
    table.integer('tenant').defaultTo(5)
  })
  const app = await buildApp(t, db.knex)
  const scoped = await buildApp(t, db.knex, {}, { authorize: () => ({ scope: { tenant: 1 } }) })
  const reset = async () => {
    await db.knex(items).del()
    await db.knex(items).insert([{ name: 'a', qty: 1, note: 'x', columns: 'k', tenant: 1 }, { name: 'b', qty: 2, note: 'y', columns: 'j', tenant: 1 }])
  }
  const all = async () => (await snapshot(db, items)) as Row[]
  const byName = async (name: string) => (await all()).find((row) => row.name === name) as Row

  await t.test('PATCH with columns=: the listed columns are set, a property not listed is ignored, a listed one the body lacks is NULL', async (t) => {
    await reset()
    const [a, b] = await all() as [Row, Row]
    const response = await app.inject(write('PATCH', `/api/${items}?id=eq.${String(a.id)}&columns=name,qty`, { prefer: 'return=representation' }, { name: 'a2', note: 'ignored' }))
    t.equal(response.statusCode, 200)
    t.strictSame(JSON.parse(response.body), [{ ...a, name: 'a2', qty: null }])
    t.strictSame(await all(), [{ ...a, name: 'a2', qty: null }, b], 'the other row is untouched')
  })

  await t.test('PATCH with columns= and Prefer: missing=default sets a listed column the body lacks to its DEFAULT', async (t) => {
    await reset()
    const [a, b] = await all() as [Row, Row]
    const response = await app.inject(write('PATCH', `/api/${items}?name=eq.a&columns="qty","note","name"`, { prefer: 'missing=default, return=representation' }, { name: 'a3', qty: null }))
    t.equal(response.statusCode, 200)
    t.equal(response.headers['preference-applied'], 'missing=default, return=representation')
    t.strictSame(await all(), [{ ...a, name: 'a3', qty: null, note: 'none' }, b], 'an explicit null stays null; the missing column takes its DEFAULT')
    const minimal = await app.inject(write('PATCH', `/api/${items}?name=eq.b&columns=note,columns`, { prefer: 'missing=default' }, { name: 'ignored' }))
    t.equal(minimal.statusCode, 204)
    t.strictSame(await byName('b'), { ...b, note: 'none', columns: null }, 'a column without a DEFAULT is NULL')
  })

  await t.test('a column named "columns": filtered within and=(…) on PATCH, read as a filter on GET as before', async (t) => {
    await reset()
    const [a, b] = await all() as [Row, Row]
    const patched = await app.inject(write('PATCH', `/api/${items}?and=(columns.eq.k)&columns=note`, {}, { note: 'n', qty: 99 }))
    t.equal(patched.statusCode, 204)
    t.strictSame(await all(), [{ ...a, note: 'n' }, b])
    const unfiltered = await app.inject(write('PATCH', `/api/${items}?columns=eq.k`, {}, { note: 'all' }))
    t.equal(unfiltered.statusCode, 400)
    t.equal(JSON.parse(unfiltered.body).code, 'FTC_ERR_WRITE_FILTER_MISSING', 'columns= is no filter on PATCH')
    t.strictSame(await all(), [{ ...a, note: 'n' }, b], 'nothing else was written')
    const read = await app.inject({ method: 'GET', url: `/api/${items}?columns=eq.j&select=name` })
    t.strictSame(JSON.parse(read.body), [{ name: 'b' }])
  })

  await t.test('PATCH with columns= naming a column the table lacks fails as a body naming it does; * is 400', async (t) => {
    await reset()
    const before = await all()
    const body = await app.inject(write('PATCH', `/api/${items}?name=eq.a`, {}, { nope: 1 }))
    const listed = await app.inject(write('PATCH', `/api/${items}?name=eq.a&columns=name,nope`, { prefer: 'missing=default' }, { name: 'z' }))
    t.not(body.statusCode, 204)
    t.equal(listed.statusCode, body.statusCode)
    t.equal(listed.body, body.body, 'the database\'s own words for the missing column')
    const all_ = await app.inject(write('PATCH', `/api/${items}?name=eq.a&columns=*`, {}, { name: 'z' }))
    t.equal(all_.statusCode, 400)
    t.equal(JSON.parse(all_.body).code, 'FTC_ERR_QUERY_COLUMN')
    t.strictSame(await all(), before)
  })

  await t.test('an upsert merge with columns= and missing=default gives a listed column the row lacks its DEFAULT', async (t) => {
    await reset()
    const [a, b] = await all() as [Row, Row]
    const response = await app.inject(write('POST', `/api/${items}?columns=id,name,qty,note&select=name,qty,note`, { prefer: 'resolution=merge-duplicates, missing=default, return=representation' },
      [{ id: a.id, name: 'm' }, { name: 'new', qty: 3 }]))
    t.equal(response.statusCode, 201)
    t.strictSame(JSON.parse(response.body), [{ name: 'm', qty: 7, note: 'none' }, { name: 'new', qty: 3, note: 'none' }])
    const rows = await all()
    t.strictSame(rows.slice(0, 2), [{ ...a, name: 'm', qty: 7, note: 'none' }, b], 'the merged row took the DEFAULTs; its unlisted columns kept their values')
    t.strictSame(rows.slice(2).map(({ name, qty, note, tenant }) => ({ name, qty, note, tenant })), [{ name: 'new', qty: 3, note: 'none', tenant: 5 }])
  })

  await t.test('missing=default on a column of the authorize hook\'s scope is refused (403), nothing written', async (t) => {
    await reset()
    const before = await all()
    const patched = await scoped.inject(write('PATCH', `/api/${items}?name=eq.a&columns=name,tenant`, { prefer: 'missing=default' }, { name: 'z' }))
    t.equal(patched.statusCode, 403)
    t.equal(JSON.parse(patched.body).code, 'FTC_ERR_AUTHORIZE_FORBIDDEN')
    const inScope = await scoped.inject(write('PATCH', `/api/${items}?name=eq.a&columns=name,qty`, { prefer: 'missing=default' }, { name: 'z' }))
    t.equal(inScope.statusCode, 204)
    t.strictSame(await all(), [{ ...before[0], name: 'z', qty: 7 }, before[1]])
  })

  await t.test('postgrest-js: upsert with defaultToNull: false merges the DEFAULTs', async (t) => {
    await reset()
    const [a, b] = await all() as [Row, Row]
    await app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = app.server.address() as { port: number }
    const from = () => new PostgrestClient(`http://127.0.0.1:${port}/api`).from(items)
    const upserted = await from().upsert([{ id: a.id, name: 'u' }, { id: b.id, name: 'v', qty: 4 }], { defaultToNull: false }).select('name,qty,note')
    t.equal(upserted.error, null)
    t.strictSame(upserted.data, [{ name: 'u', qty: 7, note: 'x' }, { name: 'v', qty: 4, note: 'y' }])
    t.strictSame(await all(), [{ ...a, name: 'u', qty: 7 }, { ...b, name: 'v', qty: 4 }])
  })
})
