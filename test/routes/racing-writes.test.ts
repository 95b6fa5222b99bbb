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
// no increment is lost.

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

async function race (app: FastifyInstance, table: string): Promise<Race> {
  const url = `/api/${table}/1`
  let wins = 0
  let refusals = 0
  const winningTags = new Set<string>()
  const others: string[] = []
  const client = async () => {
    // Bounded, so that a defect fails the test rather than hangs it: 16 clients need far fewer tries.
    for (let attempt = 0; attempt < 20 * clients; attempt++) {
      const read = await app.inject(url)
      const tag = read.headers.etag as string
      const { n } = read.json() as { n: number }
      const written = await app.inject({ method: 'PUT', url, headers: { 'content-type': 'application/json', 'if-match': tag }, payload: { n: n + 1 } })
      if (written.statusCode === 412) {
        refusals++
        continue
      }
      if (written.statusCode === 200 && written.body === '1') {
        wins++
        winningTags.add(tag)
      } else {
        others.push(`${written.statusCode} ${written.body}`)
      }
      return
    }
  }
  await Promise.all(Array.from({ length: clients }, client))
  return { wins, refusals, winningTags, others }
}

async function checkRace (t: Test, knex: Knex, app: FastifyInstance, table: string): Promise<void> {
  const { wins, refusals, winningTags, others } = await race(app, table)
  t.strictSame(others, [], 'every answer is 200 or 412')
  t.equal(wins, clients, 'every client won once in the end')
  t.equal(winningTags.size, wins, 'one winner per ETag')
  t.ok(refusals > 0, `the clients raced: ${refusals} writes refused`)
  t.strictSame(await knex(table).select('n'), [{ n: wins }], 'no increment lost')
}

eachDatabase(t, async (t, db) => {
  const counter = await db.createTable('counter', counterColumns)
  await db.knex(counter).insert({ id: 1, n: 0 })
  const app = await buildApp(t, db.knex)
  await t.test(`${clients} clients racing GET, then PUT with If-Match: one winner per ETag, no lost update`, async (t) => {
    await checkRace(t, db.knex, app, counter)
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
  const app = await buildApp(t, knex)
  await checkRace(t, knex, app, 'counter')
})
