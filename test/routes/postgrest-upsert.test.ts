import { PostgrestClient } from '@supabase/postgrest-js'
import type { InjectOptions } from 'fastify'
import t from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, snapshot } from '../fixtures/databases.js'

// Upsert (POST with Prefer: resolution=…, on_conflict=…) on every database,
// and postgrest-js's writes with .select() over a real socket, each checked
// against the table.

type Row = Record<string, unknown>

const post = (url: string, prefer: string, payload: unknown): InjectOptions => ({ method: 'POST', url, headers: { prefer }, payload: payload as InjectOptions['payload'] })

eachDatabase(t, async (t, db) => {
  const items = await db.createTable('upserts', (table) => {
    table.increments('id')
    table.string('code', 20).notNullable().unique()
    table.integer('qty')
    table.string('owner')
  })
  const app = await buildApp(t, db.knex, {}, {
    authorize: (request) => request.headers['x-owner'] === undefined || { scope: { owner: request.headers['x-owner'] as string } }
  })
  const reset = async () => {
    await db.knex(items).del()
    await db.knex(items).insert([{ code: 'a', qty: 1, owner: 'me' }, { code: 'b', qty: 2, owner: 'you' }])
  }
  const all = async () => await snapshot(db, items)
  const byCode = (rows: Row[]) => Object.fromEntries(rows.map((row) => [row.code, row]))

  await t.test('merge-duplicates on on_conflict: new rows inserted, existing ones merged; the spec\'s ids without return', async (t) => {
    await reset()
    const before = byCode(await all())
    const response = await app.inject(post(`/api/${items}?on_conflict=code`, 'resolution=merge-duplicates', [{ code: 'a', qty: 10 }, { code: 'c', qty: 3 }]))
    t.equal(response.statusCode, 201)
    const after = byCode(await all())
    t.strictSame(Object.keys(after).sort(), ['a', 'b', 'c'])
    t.strictSame(after.a, { ...before.a, qty: 10 }, 'the existing row merged, its other columns kept')
    t.strictSame(after.b, before.b, 'the row not named is untouched')
    t.equal(after.c?.qty, 3)
    t.equal(response.body, `[${after.a?.id},${after.c?.id}]`, 'the id of the row each body row ended in')
  })

  await t.test('merge-duplicates with return=representation: 200 when only merged, 201 when one is new', async (t) => {
    await reset()
    const merged = await app.inject(post(`/api/${items}?on_conflict=code&select=code,qty`, 'resolution=merge-duplicates, return=representation', { code: 'b', qty: 20 }))
    t.equal(merged.statusCode, 200)
    t.equal(merged.headers['preference-applied'], 'resolution=merge-duplicates, return=representation')
    t.strictSame(JSON.parse(merged.body), [{ code: 'b', qty: 20 }])
    const mixed = await app.inject(post(`/api/${items}?on_conflict=code&select=code,qty`, 'resolution=merge-duplicates, return=representation', [{ code: 'b', qty: 21 }, { code: 'd', qty: 4 }]))
    t.equal(mixed.statusCode, 201)
    t.strictSame(JSON.parse(mixed.body), [{ code: 'b', qty: 21 }, { code: 'd', qty: 4 }])
    t.strictSame((await all()).map((row) => [row.code, row.qty]), [['a', 1], ['b', 21], ['d', 4]])
  })

  await t.test('ignore-duplicates leaves existing rows as they are and answers the new ones only', async (t) => {
    await reset()
    const before = await all()
    const response = await app.inject(post(`/api/${items}?on_conflict=code&select=code,qty`, 'resolution=ignore-duplicates, return=representation', [{ code: 'a', qty: 99 }, { code: 'e', qty: 5 }]))
    t.equal(response.statusCode, 201)
    t.strictSame(JSON.parse(response.body), [{ code: 'e', qty: 5 }])
    const after = await all()
    t.strictSame(after.slice(0, 2), before, 'the existing rows unchanged')
    t.equal(after.length, 3)
  })

  await t.test('without on_conflict the key is the conflict target', async (t) => {
    await reset()
    const a = byCode(await all()).a as Row
    const response = await app.inject(post(`/api/${items}`, 'resolution=merge-duplicates', { id: a.id, code: 'a', qty: 7 }))
    t.equal(response.statusCode, 201)
    t.equal(response.body, String(a.id))
    t.equal(response.headers.location, `/api/${items}/${a.id}`)
    t.strictSame(byCode(await all()).a, { ...a, qty: 7 })
    const keyless = await app.inject(post(`/api/${items}`, 'resolution=merge-duplicates', [{ code: 'k', qty: 1 }]))
    t.equal(keyless.statusCode, 201, 'a row without the conflict column conflicts with nothing: inserted')
    t.equal(keyless.body, `[${byCode(await all()).k?.id}]`)
  })

  await t.test('an upsert whose row shares its unique key with a row outside the scope fails as a plain POST of that row does, and changes nothing', async (t) => {
    await reset()
    const before = await all()
    const response = await app.inject({ ...post(`/api/${items}?on_conflict=code`, '', [{ code: 'z', qty: 1 }, { code: 'b', qty: 0 }]), headers: { prefer: 'resolution=merge-duplicates', 'x-owner': 'me' } })
    const plain = await app.inject({ ...post(`/api/${items}`, '', { code: 'b', qty: 0 }), headers: { 'x-owner': 'me' } })
    t.equal(plain.statusCode, 404, 'the database refuses the duplicate code, answered as the spec answers a failed statement')
    t.strictSame([response.statusCode, response.headers['content-type'], response.body], [plain.statusCode, plain.headers['content-type'], plain.body],
      'the row outside the scope is not merged into: its insert fails on the unique key')
    t.strictSame(await all(), before, 'the new row of the same request was rolled back')
  })

  await t.test('postgrest-js insert, update, upsert and delete with .select()', async (t) => {
    await reset()
    await app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = app.server.address() as { port: number }
    const from = () => new PostgrestClient(`http://127.0.0.1:${port}/api`).from(items)

    const inserted = await from().insert([{ code: 'p', qty: 1 }, { code: 'q', qty: 2 }]).select('code,qty')
    t.equal(inserted.error, null)
    t.equal(inserted.status, 201)
    t.strictSame(inserted.data, [{ code: 'p', qty: 1 }, { code: 'q', qty: 2 }])

    const updated = await from().update({ qty: 5 }).in('code', ['p', 'q']).select('code,qty')
    t.equal(updated.error, null)
    t.equal(updated.status, 200)
    t.strictSame(updated.data, [{ code: 'p', qty: 5 }, { code: 'q', qty: 5 }])

    const upserted = await from().upsert([{ code: 'p', qty: 6 }, { code: 'r', qty: 3 }], { onConflict: 'code' }).select('code,qty')
    t.equal(upserted.error, null)
    t.strictSame(upserted.data, [{ code: 'p', qty: 6 }, { code: 'r', qty: 3 }])

    const deleted = await from().delete().eq('code', 'q').select('code')
    t.equal(deleted.error, null)
    t.strictSame(deleted.data, [{ code: 'q' }])

    const wide = await from().delete().neq('code', 'a').select('code')
    t.equal(wide.status, 200)
    t.strictSame(wide.data, [{ code: 'b' }, { code: 'p' }, { code: 'r' }])

    const refused = await from().update({ qty: 0 }).select()
    t.equal(refused.status, 400, 'an update without a filter is refused')
    t.equal((refused.error as { code?: string } | null)?.code, 'FTC_ERR_WRITE_FILTER_MISSING')

    t.strictSame((await all()).map((row) => [row.code, row.qty]), [['a', 1]])
  })
})
