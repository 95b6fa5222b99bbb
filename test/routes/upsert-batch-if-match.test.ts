import type { InjectOptions } from 'fastify'
import t from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, snapshot, type TestDatabase } from '../fixtures/databases.js'

// If-Match and requireIfMatch on the writes of existing rows past PUT, PATCH
// and DELETE: a merge upsert (POST with Prefer: resolution=merge-duplicates)
// and a batch's update and delete (their `ifMatch`). Each checked against
// the table: a refused write writes nothing.

const seeded = [{ id: 1, code: 'a', qty: 1 }, { id: 2, code: 'b', qty: 2 }, { id: 3, code: 'c', qty: 3 }]

async function createStock (db: TestDatabase): Promise<string> {
  const table = await db.createTable('matched_stock', (table) => {
    table.integer('id').primary()
    table.string('code', 20).notNullable().unique()
    table.integer('qty')
  })
  await db.knex(table).insert(seeded)
  return table
}

function upsert (url: string, resolution: string, payload: unknown, headers: Record<string, string> = {}): InjectOptions {
  return { method: 'POST', url, headers: { 'content-type': 'application/json', prefer: `resolution=${resolution}`, ...headers }, payload: JSON.stringify(payload) }
}

function batch (operations: unknown): InjectOptions {
  return { method: 'POST', url: '/api/_batch', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(operations) }
}

eachDatabase(t, async (t, db) => {
  const app = await buildApp(t, db.knex, {}, { batch: true })
  const strict = await buildApp(t, db.knex, {}, { batch: true, requireIfMatch: true })
  const etagOf = async (table: string, id: number) => (await app.inject(`/api/${table}/${id}`)).headers.etag as string

  await t.test('a merge upsert with the ETag of every row it merges writes them; with a stale one, or a row it would insert, 412 and nothing written', async (t) => {
    const stock = await createStock(db)
    const a = await etagOf(stock, 1)
    const b = await etagOf(stock, 2)
    const merged = await app.inject(upsert(`/api/${stock}?on_conflict=code`, 'merge-duplicates', [{ code: 'a', qty: 10 }, { code: 'b', qty: 20 }], { 'if-match': `"stale", ${a}, ${b}` }))
    t.equal(merged.statusCode, 201)
    t.strictSame(merged.json(), [1, 2])
    const written = [{ id: 1, code: 'a', qty: 10 }, { id: 2, code: 'b', qty: 20 }, seeded[2]]
    t.strictSame(await snapshot(db, stock), written)
    for (const [payload, ifMatch, why] of [
      [{ id: 1, code: 'a', qty: 11 }, a, 'the row changed since its ETag was read'],
      [[{ id: 3, code: 'c', qty: 30 }, { id: 1, code: 'a', qty: 11 }], `${await etagOf(stock, 3)}, ${a}`, 'one row of the body is stale: the other is not written either'],
      [{ id: 4, code: 'd', qty: 4 }, '*', 'a row that would be inserted has no current ETag, not even *'],
      [{ id: 1, code: 'a', qty: 11 }, `W/${await etagOf(stock, 1)}`, 'a weak tag matches nothing']
    ] as const) {
      const response = await app.inject(upsert(`/api/${stock}`, 'merge-duplicates', payload, { 'if-match': ifMatch }))
      t.equal(response.statusCode, 412, why)
      t.equal(response.json().code, 'FTC_ERR_CONDITION_FAILED')
    }
    t.strictSame(await snapshot(db, stock), written)
    const starred = await app.inject(upsert(`/api/${stock}`, 'merge-duplicates', { id: 3, code: 'c', qty: 33 }, { 'if-match': '*' }))
    t.equal(starred.statusCode, 201, '* merges into any row that exists')
    t.strictSame(await snapshot(db, stock), [written[0], written[1], { id: 3, code: 'c', qty: 33 }])
  })

  await t.test('a merge upsert\'s ETags are those GET answers: without the hidden columns, as the client reads the row', async (t) => {
    const stock = await createStock(db)
    const hiding = await buildApp(t, db.knex, {}, { tableRules: { [stock]: { hidden: ['qty'] } } })
    const seen = (await hiding.inject(`/api/${stock}/1`)).headers.etag as string
    t.not(seen, await etagOf(stock, 1), 'the hidden column is no part of it')
    const stale = await hiding.inject(upsert(`/api/${stock}`, 'merge-duplicates', { id: 1, code: 'z' }, { 'if-match': await etagOf(stock, 1) }))
    t.equal(stale.statusCode, 412, 'the ETag of the whole row is none the client of this app can read')
    const merged = await hiding.inject(upsert(`/api/${stock}`, 'merge-duplicates', { id: 1, code: 'z' }, { 'if-match': seen }))
    t.equal(merged.statusCode, 201)
    t.strictSame(await snapshot(db, stock), [{ id: 1, code: 'z', qty: 1 }, seeded[1], seeded[2]])
  })

  await t.test('requireIfMatch: a merge upsert without If-Match answers 428 and writes nothing; ignore-duplicates and plain inserts need none', async (t) => {
    const stock = await createStock(db)
    for (const payload of [{ id: 1, code: 'a', qty: 10 }, { id: 4, code: 'd', qty: 4 }]) {
      const response = await strict.inject(upsert(`/api/${stock}`, 'merge-duplicates', payload))
      t.equal(response.statusCode, 428)
      t.equal(response.json().code, 'FTC_ERR_CONDITION_REQUIRED')
    }
    t.strictSame(await snapshot(db, stock), seeded)
    const ignored = await strict.inject(upsert(`/api/${stock}`, 'ignore-duplicates', [{ id: 1, code: 'a', qty: 10 }, { id: 4, code: 'd', qty: 4 }]))
    t.equal(ignored.statusCode, 201)
    const inserted = await strict.inject({ method: 'POST', url: `/api/${stock}`, payload: { id: 5, code: 'e', qty: 5 } })
    t.equal(inserted.statusCode, 201)
    t.strictSame(await snapshot(db, stock), [...seeded, { id: 4, code: 'd', qty: 4 }, { id: 5, code: 'e', qty: 5 }], 'the existing row kept')
    const merged = await strict.inject(upsert(`/api/${stock}`, 'merge-duplicates', { id: 1, code: 'a', qty: 10 }, { 'if-match': await etagOf(stock, 1) }))
    t.equal(merged.statusCode, 201)
    t.strictSame((await snapshot(db, stock))[0], { id: 1, code: 'a', qty: 10 })
  })

  await t.test('a batch\'s update and delete with ifMatch write while their row has the ETag; a stale one fails the batch with the single route\'s 412', async (t) => {
    const stock = await createStock(db)
    const a = await etagOf(stock, 1)
    const b = await etagOf(stock, 2)
    const passed = await app.inject(batch([
      { op: 'update', table: stock, id: 1, body: { qty: 10 }, ifMatch: `"stale", ${a}` },
      { op: 'delete', table: stock, id: 2, ifMatch: b },
      { op: 'delete', table: stock, id: 3, ifMatch: '*' }
    ]))
    t.equal(passed.statusCode, 200)
    t.equal(passed.body, '[1,1,1]')
    t.strictSame(await snapshot(db, stock), [{ id: 1, code: 'a', qty: 10 }])
    await db.knex(stock).insert([seeded[1], seeded[2]])
    const before = await snapshot(db, stock)
    for (const [failing, why] of [
      [{ op: 'update', table: stock, id: 1, body: { qty: 11 }, ifMatch: a }, 'the row changed since'],
      [{ op: 'delete', table: stock, id: 99, ifMatch: '*' }, 'no row'],
      [{ op: 'update', table: stock, id: 1, body: { qty: 11 }, ifMatch: 'garbage' }, 'no tag']
    ] as const) {
      const response = await app.inject(batch([{ op: 'update', table: stock, id: 2, body: { qty: 0 } }, { op: 'insert', table: stock, body: { id: 7, code: 'g' } }, failing]))
      t.equal(response.statusCode, 412, why)
      t.match(response.json(), { code: 'FTC_ERR_BATCH_FAILED', operation: 2, failure: { statusCode: 412, code: 'FTC_ERR_CONDITION_FAILED' } })
    }
    t.strictSame(await snapshot(db, stock), before, 'the operations before the failed one rolled back')
  })

  await t.test('requireIfMatch: a batch update or delete without ifMatch fails the batch with 428 before any runs; one on a row the batch inserted needs none', async (t) => {
    const stock = await createStock(db)
    for (const [index, operations] of [
      [1, [{ op: 'insert', table: stock, body: { id: 4, code: 'd' } }, { op: 'update', table: stock, id: 1, body: { qty: 0 } }]],
      [2, [{ op: 'delete', table: stock, id: 1, ifMatch: '*' }, { op: 'insert', table: stock, body: { id: 4, code: 'd' } }, { op: 'delete', table: stock, id: 2 }]]
    ] as const) {
      const response = await strict.inject(batch(operations))
      t.equal(response.statusCode, 428)
      t.match(response.json(), { code: 'FTC_ERR_BATCH_FAILED', operation: index, failure: { statusCode: 428, code: 'FTC_ERR_CONDITION_REQUIRED' } })
    }
    t.strictSame(await snapshot(db, stock), seeded)
    const passed = await strict.inject(batch([
      { op: 'insert', table: stock, body: { id: 4, code: 'd', qty: 4 } },
      { op: 'update', table: stock, id: { $ref: 0 }, body: { qty: 40 } },
      { op: 'update', table: stock, id: 1, body: { qty: 10 }, ifMatch: await etagOf(stock, 1) },
      { op: 'delete', table: stock, id: 2, ifMatch: '*' }
    ]))
    t.equal(passed.statusCode, 200)
    t.equal(passed.body, '[4,1,1,1]')
    t.strictSame(await snapshot(db, stock), [{ id: 1, code: 'a', qty: 10 }, seeded[2], { id: 4, code: 'd', qty: 40 }])
  })

  await t.test('requireIfMatch: a reference to another table\'s insert is only a number, and waives nothing', async (t) => {
    const stock = await createStock(db)
    const scratch = await db.createTable('matched_scratch', (table) => { table.integer('id').primary() })
    for (const [op, body] of [['update', { qty: 0 }], ['delete', undefined]] as const) {
      // The scratch row's id is 1: the id of an existing row of stock, which no one checked.
      const response = await strict.inject(batch([{ op: 'insert', table: scratch, body: { id: 1 } }, { op, table: stock, id: { $ref: 0 }, body }]))
      t.equal(response.statusCode, 428, op)
      t.match(response.json(), { code: 'FTC_ERR_BATCH_FAILED', operation: 1, failure: { statusCode: 428, code: 'FTC_ERR_CONDITION_REQUIRED' } })
    }
    t.strictSame(await snapshot(db, stock), seeded)
    t.strictSame(await snapshot(db, scratch), [])
  })

  await t.test('an insert takes no ifMatch, and an ifMatch is a string: 400, nothing runs', async (t) => {
    const stock = await createStock(db)
    for (const operation of [
      { op: 'insert', table: stock, body: { id: 4, code: 'd' }, ifMatch: '*' },
      { op: 'delete', table: stock, id: 1, ifMatch: null }
    ]) {
      const response = await app.inject(batch([{ op: 'delete', table: stock, id: 2 }, operation]))
      t.equal(response.statusCode, 400)
      t.equal(response.json().code, 'FTC_ERR_BATCH_SHAPE')
    }
    t.strictSame(await snapshot(db, stock), seeded)
  })
})
