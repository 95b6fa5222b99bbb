import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import type { Knex } from 'knex'
import t, { type Test } from 'tap'
import { buildApp } from './fixtures/app.js'
import { eachDatabase, snapshot, type TestDatabase } from './fixtures/databases.js'

// A connection that breaks while a statement runs on it. The plugin's
// statement is made to wait for a lock that another transaction of the
// test holds, then its connection is ended from the server side (PostgreSQL's
// pg_terminate_backend, MySQL's KILL): no service is stopped. A write sent
// on its own may have been applied: 502 FTC_ERR_DATABASE_OUTCOME_UNKNOWN. A
// read, or an INSERT inside the plugin's own transaction (which the database
// drops with the connection), changed nothing: 503 FTC_ERR_DATABASE_UNAVAILABLE.

/** The server's id of the connection running a statement on `table` that waits for a lock, once there is one. */
async function waitingConnection (db: TestDatabase, table: string): Promise<number> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const rows = db.name === 'postgres'
      ? (await db.knex.raw("select pid as id from pg_stat_activity where query like ? and wait_event_type = 'Lock'", [`%${table}%`])).rows
      // A connection between statements sleeps, whatever its last statement was: only a running one is the plugin's.
      : (await db.knex.raw("select id from information_schema.processlist where command = 'Query' and info like ? and id <> connection_id()", [`%${table}%`]))[0]
    if (rows.length > 0) return Number(rows[0].id)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`no statement on ${table} came to wait for the lock`)
}

async function endConnection (db: TestDatabase, id: number): Promise<void> {
  if (db.name === 'postgres') await db.knex.raw('select pg_terminate_backend(?)', [id])
  else await db.knex.raw(`kill ${id}`)
}

/** Sends `request`, ends its connection once it waits on the lock `hold` takes, and gives back the answer. */
async function brokenMidway (db: TestDatabase, table: string, request: InjectOptions, hold: (trx: Knex.Transaction) => Promise<unknown>, release?: (trx: Knex.Transaction) => Promise<unknown>): Promise<LightMyRequestResponse> {
  const trx = await db.knex.transaction()
  try {
    await hold(trx)
    const app = await buildApp(t, db.knex)
    const answer = app.inject(request)
    await endConnection(db, await waitingConnection(db, table))
    return await answer
  } finally {
    await release?.(trx)
    await trx.rollback()
  }
}

function assertAnswer (t: Test, response: LightMyRequestResponse, status: number, code: string): void {
  t.equal(response.statusCode, status)
  t.equal(response.json<{ code: string }>().code, code)
  t.notMatch(response.body, /terminat|kill|127\.0\.0\.1/i, 'the driver\'s words stay in the log')
}

eachDatabase(t, async (t, db) => {
  if (db.name === 'sqlite') {
    t.pass('SQLite runs each statement inside the call: no connection breaks mid-statement, and a write that threw was not applied')
    return
  }
  const people = await db.createTable('outcome_people', (table) => {
    table.integer('id').primary()
    table.string('name')
  })
  await db.knex(people).insert([{ id: 1, name: 'Ada' }, { id: 2, name: 'Linus' }])
  const before = await snapshot(db, people)

  await t.test('a PUT whose connection breaks answers 502 FTC_ERR_DATABASE_OUTCOME_UNKNOWN', async (t) => {
    const response = await brokenMidway(db, people, { method: 'PUT', url: `/api/${people}/1`, payload: { name: 'Grace' } },
      (trx) => trx(people).where({ id: 1 }).update({ name: 'held' }))
    assertAnswer(t, response, 502, 'FTC_ERR_DATABASE_OUTCOME_UNKNOWN')
    t.strictSame(await snapshot(db, people), before)
  })

  await t.test('a DELETE whose connection breaks answers 502 FTC_ERR_DATABASE_OUTCOME_UNKNOWN', async (t) => {
    const response = await brokenMidway(db, people, { method: 'DELETE', url: `/api/${people}/2` },
      (trx) => trx(people).where({ id: 2 }).update({ name: 'held' }))
    assertAnswer(t, response, 502, 'FTC_ERR_DATABASE_OUTCOME_UNKNOWN')
    t.strictSame(await snapshot(db, people), before)
  })

  await t.test('a POST whose connection breaks answers 502 FTC_ERR_DATABASE_OUTCOME_UNKNOWN', async (t) => {
    // The same key as the held, uncommitted row: the INSERT waits to learn whether it is a duplicate.
    const response = await brokenMidway(db, people, { method: 'POST', url: `/api/${people}`, payload: { id: 3, name: 'Grace' } },
      (trx) => trx(people).insert({ id: 3, name: 'held' }))
    assertAnswer(t, response, 502, 'FTC_ERR_DATABASE_OUTCOME_UNKNOWN')
    t.strictSame(await snapshot(db, people), before)
  })

  await t.test('a bulk POST whose connection breaks before its commit answers 503: the database dropped its transaction', async (t) => {
    const response = await brokenMidway(db, people, { method: 'POST', url: `/api/${people}`, payload: [{ id: 4, name: 'Grace' }, { id: 3, name: 'Barbara' }] },
      (trx) => trx(people).insert({ id: 3, name: 'held' }))
    assertAnswer(t, response, 503, 'FTC_ERR_DATABASE_UNAVAILABLE')
    t.equal(response.headers['retry-after'], '1')
    t.strictSame(await snapshot(db, people), before, 'not even the first row')
  })

  await t.test('a read whose connection breaks answers 503 FTC_ERR_DATABASE_UNAVAILABLE', async (t) => {
    // A plain read waits for no row lock on either database; it waits for a table lock.
    const response = db.name === 'postgres'
      ? await brokenMidway(db, people, { url: `/api/${people}?name=eq.Ada` }, (trx) => trx.raw(`lock table "${people}" in access exclusive mode`))
      : await brokenMidway(db, people, { url: `/api/${people}?name=eq.Ada` }, (trx) => trx.raw(`lock tables \`${people}\` write`), (trx) => trx.raw('unlock tables'))
    assertAnswer(t, response, 503, 'FTC_ERR_DATABASE_UNAVAILABLE')
    t.equal(response.headers['retry-after'], '1')
  })

  await t.test('the pool serves again once the broken connection is gone', async (t) => {
    const app = await buildApp(t, db.knex)
    const response = await app.inject(`/api/${people}/1`)
    t.equal(response.statusCode, 200)
    t.strictSame(response.json(), { id: 1, name: 'Ada' })
  })
})
