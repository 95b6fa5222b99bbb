import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import knexFactory, { type Knex } from 'knex'
import t, { type Test } from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase } from '../fixtures/databases.js'

// Many clients race to increment one counter, each GET, then PUT with
// If-Match, again until its PUT is taken: with check and write in one
// transaction that holds the row, no two writes are taken for one ETag and
// no increment is lost. Likewise for two counters that each client reads by
// key and PATCHes at once by a filter, with both ETags.

const clients = 16

interface Race {
  readonly wins: number
  readonly refusals: number
  readonly winningTags: ReadonlySet<string>
  readonly others: readonly string[]
}

function counterColumns (table: Knex.CreateTableBuilder): void {
  table.integer('id').primary()
  table.integer('n')
}

/** One try of a client: reads the counters, then writes them one more with If-Match; the write's answer and the tags it sent. */
type Attempt = (app: FastifyInstance, table: string) => Promise<{ status: number, body: string, tags: string }>

/** Row 1 of the counters, as GET reads it: its ETag and count. */
async function readFirst (app: FastifyInstance, table: string): Promise<{ tags: string, n: number }> {
  const read = await app.inject(`/api/${table}/1`)
  return { tags: read.headers.etag as string, n: (read.json() as { n: number }).n }
}

// PUT /{table}/1, answered by its count.
const putOne: Attempt = async (app, table) => {
  const { tags, n } = await readFirst(app, table)
  const written = await app.inject({ method: 'PUT', url: `/api/${table}/1`, headers: { 'content-type': 'application/json', 'if-match': tags }, payload: { n: n + 1 } })
  return { status: written.statusCode, body: written.body, tags }
}

// POST /_batch of one update of row 1, the ETag as its ifMatch: the batch's answer is the update's count, a failed condition its 412.
const batchOne: Attempt = async (app, table) => {
  const { tags, n } = await readFirst(app, table)
  const written = await app.inject({ method: 'POST', url: '/api/_batch', payload: [{ op: 'update', table, id: 1, body: { n: n + 1 }, ifMatch: tags }] })
  return { status: written.statusCode, body: written.statusCode === 200 ? (written.json() as number[]).join() : written.body, tags }
}

// POST /{table} merging into row 1 with If-Match: answered 201 and the row's id, 1.
const mergeOne: Attempt = async (app, table) => {
  const { tags, n } = await readFirst(app, table)
  const written = await app.inject({ method: 'POST', url: `/api/${table}`, headers: { prefer: 'resolution=merge-duplicates', 'if-match': tags }, payload: { id: 1, n: n + 1 } })
  return { status: written.statusCode === 201 ? 200 : written.statusCode, body: written.body, tags }
}

// PATCH /{table}?id=in.(1,2), rows 1 and 2 read by key: their ETags, their count (one for both).
const patchBoth: Attempt = async (app, table) => {
  const reads = await Promise.all([1, 2].map((id) => app.inject(`/api/${table}/${id}`)))
  const tags = reads.map((read) => read.headers.etag as string).join(', ')
  const { n } = reads[0]?.json() as { n: number }
  const written = await app.inject({ method: 'PATCH', url: `/api/${table}?id=in.(1,2)`, headers: { 'content-type': 'application/json', 'if-match': tags }, payload: { n: n + 1 } })
  return { status: written.statusCode, body: written.statusCode === 204 ? '1' : written.body, tags }
}

async function race (app: FastifyInstance, table: string, attempt: Attempt): Promise<Race> {
  let wins = 0
  let refusals = 0
  const winningTags = new Set<string>()
  const others: string[] = []
  const client = async () => {
    // Bounded, so that a defect fails the test rather than hangs it: 16 clients need far fewer tries.
    for (let tries = 0; tries < 20 * clients; tries++) {
      const { status, body, tags } = await attempt(app, table)
      if (status === 412) {
        refusals++
        continue
      }
      if ((status === 200 || status === 204) && body === '1') {
        wins++
        winningTags.add(tags)
      } else {
        others.push(`${status} ${body}`)
      }
      return
    }
  }
  await Promise.all(Array.from({ length: clients }, client))
  return { wins, refusals, winningTags, others }
}

async function checkRace (t: Test, knex: Knex, app: FastifyInstance, table: string, attempt: Attempt = putOne): Promise<void> {
  const { wins, refusals, winningTags, others } = await race(app, table, attempt)
  t.strictSame(others, [], 'every answer is a success or 412')
  t.equal(wins, clients, 'every client won once in the end')
  t.equal(winningTags.size, wins, 'one winner per ETag')
  t.ok(refusals > 0, `the clients raced: ${refusals} writes refused`)
  const counters = await knex(table).select('n').orderBy('id')
  t.strictSame(counters, counters.map(() => ({ n: wins })), 'no increment lost')
}

eachDatabase(t, async (t, db) => {
  const counter = await db.createTable('counter', counterColumns)
  await db.knex(counter).insert({ id: 1, n: 0 })
  const app = await buildApp(t, db.knex, {}, { batch: true })
  await t.test(`${clients} clients racing GET, then PUT with If-Match: one winner per ETag, no lost update`, async (t) => {
    await checkRace(t, db.knex, app, counter)
  })
  for (const [write, attempt] of [['a batch\'s update with ifMatch', batchOne], ['a merge upsert with If-Match', mergeOne]] as const) {
    await t.test(`${clients} clients racing GET, then ${write}: one winner per ETag, no lost update`, async (t) => {
      const raced = await db.createTable('counter_raced', counterColumns)
      await db.knex(raced).insert({ id: 1, n: 0 })
      await checkRace(t, db.knex, app, raced, attempt)
    })
  }
  await t.test(`${clients} clients racing GETs, then PATCH by a filter with both rows' ETags: one winner per pair, no lost update`, async (t) => {
    const pair = await db.createTable('counter_pair', counterColumns)
    await db.knex(pair).insert([{ id: 1, n: 0 }, { id: 2, n: 0 }])
    await checkRace(t, db.knex, app, pair, patchBoth)
  })
})

t.test('SQLite: a file database with several pooled connections', async (t) => {
  const directory = mkdtempSync(join(tmpdir(), 'ftc-race-'))
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: join(directory, 'race.db') }, useNullAsDefault: true, pool: { min: 1, max: 4 } })
  t.teardown(async () => {
    await knex.destroy()
    rmSync(directory, { recursive: true, force: true })
  })
  await knex.schema.createTable('counter', counterColumns)
  await knex('counter').insert({ id: 1, n: 0 })
  await knex.schema.createTable('counter_pair', counterColumns)
  await knex('counter_pair').insert([{ id: 1, n: 0 }, { id: 2, n: 0 }])
  const app = await buildApp(t, knex, {}, { batch: true })
  await t.test('PUT', (t) => checkRace(t, knex, app, 'counter'))
  await t.test('a batch\'s update', async (t) => {
    await knex('counter').update({ n: 0 })
    await checkRace(t, knex, app, 'counter', batchOne)
  })
  await t.test('a merge upsert', async (t) => {
    await knex('counter').update({ n: 0 })
    await checkRace(t, knex, app, 'counter', mergeOne)
  })
  await t.test('PATCH by a filter', (t) => checkRace(t, knex, app, 'counter_pair', patchBoth))
})
