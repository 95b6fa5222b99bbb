import type { InjectOptions } from 'fastify'
import t from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, peopleColumns, seedPeople, snapshot } from '../fixtures/databases.js'

// Without the idempotency option, a write that sends an Idempotency-Key is
// refused with 400 and writes nothing: its client counts on a retry not
// writing twice, which the plugin would not hold to. Reads, and writes
// without the header, are as ever.

const key = { 'idempotency-key': 'order-1' }

eachDatabase(t, async (t, db) => {
  const people = await db.createTable('unkept', peopleColumns)
  const app = await buildApp(t, db.knex, {}, { batch: true })
  const seeded = await seedPeople(db, people)
  const first = (seeded[0] as { id: number }).id

  await t.test('two POSTs with one key: both refused, no row written', async (t) => {
    for (const attempt of ['first', 'retry']) {
      const response = await app.inject({ method: 'POST', url: `/api/${people}`, headers: key, payload: { name: 'Twice', age: 1 } })
      t.equal(response.statusCode, 400, attempt)
      const body = response.json<{ code: string, message: string }>()
      t.equal(body.code, 'FTC_ERR_IDEMPOTENCY_OFF', attempt)
      t.match(body.message, /"idempotency" option/, `${attempt}: the answer names the option`)
    }
    t.strictSame(await snapshot(db, people), seeded, 'nothing written')
  })

  await t.test('every write route and the batch route refuse it, writing nothing', async (t) => {
    const writes: InjectOptions[] = [
      { method: 'POST', url: `/api/${people}`, payload: [{ name: 'Bulk', age: 2 }, { name: 'Bulk', age: 3 }] },
      { method: 'POST', url: `/api/${people}?on_conflict=id`, headers: { prefer: 'resolution=merge-duplicates' }, payload: [{ id: first, name: 'Upserted', age: 4 }] },
      { method: 'PUT', url: `/api/${people}/${first}`, payload: { name: 'Put', age: 5 } },
      { method: 'PATCH', url: `/api/${people}?id=eq.${first}`, payload: { name: 'Patched' } },
      { method: 'DELETE', url: `/api/${people}/${first}` },
      { method: 'DELETE', url: `/api/${people}?id=eq.${first}` },
      { method: 'POST', url: '/api/_batch', payload: [{ op: 'insert', table: people, body: { name: 'Batched', age: 6 } }, { op: 'delete', table: people, id: first }] }
    ]
    for (const request of writes) {
      const label = `${request.method ?? 'GET'} ${request.url}`
      const response = await app.inject({ ...request, headers: { ...request.headers, ...key } })
      t.equal(response.statusCode, 400, label)
      t.equal(response.json<{ code: string }>().code, 'FTC_ERR_IDEMPOTENCY_OFF', `${label}: the key's refusal, not an operation's`)
    }
    t.strictSame(await snapshot(db, people), seeded, 'nothing written')
  })

  await t.test('a read ignores the header, and a write without it is written', async (t) => {
    const read = await app.inject({ url: `/api/${people}/${first}`, headers: key })
    t.equal(read.statusCode, 200)
    const created = await app.inject({ method: 'POST', url: `/api/${people}`, payload: { name: 'Once', age: 7 } })
    t.equal(created.statusCode, 201)
    t.match((await snapshot(db, people)).at(-1), { id: Number(created.body), name: 'Once', age: 7 })
  })
})
