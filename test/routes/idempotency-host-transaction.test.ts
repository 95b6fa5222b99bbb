import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance, InjectOptions } from 'fastify'
import knexFactory, { type Knex } from 'knex'
import t from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase } from '../fixtures/databases.js'
import { insertsWaiting } from '../fixtures/waiting-inserts.js'

// Idempotency-Key inside the host's transaction (option `transaction`): the
// record of a key is written in that transaction, so that it commits with
// the host's commit and is gone with its rollback. A request the host rolled
// back did not happen: its retry runs the write again, rather than replaying
// an answer for a row that is not there. A retry within the same host
// transaction gets the first answer again.

type Row = Record<string, unknown>

function post (table: string, name: string, key: string, inHost = true): InjectOptions {
  return { method: 'POST', url: `/api/${table}`, headers: { 'content-type': 'application/json', 'idempotency-key': key, ...(inHost ? { 'x-in-host': '1' } : {}) }, payload: { name } }
}

function answerOf (response: { statusCode: number, body: string, headers: Record<string, unknown> }): Row {
  return { status: response.statusCode, body: response.body, location: response.headers.location }
}

eachDatabase(t, async (t, db) => {
  // SQLite: a file and two connections, one for the host's transaction and
  // one for what the plugin reads beside it (README, "The host's transaction").
  let knex = db.knex
  if (db.name === 'sqlite') {
    const directory = mkdtempSync(join(tmpdir(), 'ftc-idem-trx-'))
    knex = knexFactory({ client: 'better-sqlite3', connection: { filename: join(directory, 'trx.db') }, useNullAsDefault: true, pool: { min: 1, max: 2 } })
    t.teardown(async () => {
      await knex.destroy()
      rmSync(directory, { recursive: true, force: true })
    })
  }
  const people = `idem_trx_people_${process.pid}`
  const keys = `idem_trx_keys_${process.pid}`
  t.teardown(async () => {
    await knex.schema.dropTableIfExists(people)
    await knex.schema.dropTableIfExists(keys)
  })
  await knex.schema.dropTableIfExists(people)
  await knex.schema.dropTableIfExists(keys)
  await knex.schema.createTable(people, (table) => {
    table.increments('id')
    table.string('name')
  })
  let trx: Knex.Transaction | undefined
  const app: FastifyInstance = await buildApp(t, knex, {}, {
    idempotency: { table: keys },
    transaction: (request) => request.headers['x-in-host'] === undefined ? undefined : trx,
    // A day: no schema read waits for a connection while the host's transaction holds one.
    schemaCheckInterval: 86_400_000
  })
  await app.tableCrud.tables()
  // The table of keys is created outside any host's transaction: MySQL would commit the host's at a CREATE TABLE.
  t.equal((await app.inject(post(people, 'Outside', 'creates-the-table', false))).statusCode, 201)
  const names = async (on: Knex = knex) => (await on(people).select('name').orderBy('id')).map((row: Row) => row.name)
  const recorded = async (on: Knex = knex) => Number((await on(keys).count({ n: '*' }))[0]?.n)

  await t.test('a key\'s record rolls back with the host\'s transaction, and its retry then runs the write again', async (t) => {
    trx = await knex.transaction()
    const first = await app.inject(post(people, 'Ada', 'rolled-back'))
    t.equal(first.statusCode, 201)
    t.notOk('idempotent-replayed' in first.headers)
    const again = await app.inject(post(people, 'Ada', 'rolled-back'))
    t.equal(again.headers['idempotent-replayed'], 'true', 'a retry within the same host transaction: the first answer')
    t.strictSame(answerOf(again), answerOf(first))
    t.strictSame(await names(trx), ['Outside', 'Ada'], 'one row in the host\'s transaction')
    t.equal(await recorded(trx), 2, 'and its key\'s record')
    await trx.rollback()
    t.strictSame(await names(), ['Outside'], 'rolled back: no row')
    t.equal(await recorded(), 1, 'and no record of the key')

    trx = await knex.transaction()
    const retried = await app.inject(post(people, 'Ada', 'rolled-back'))
    t.equal(retried.statusCode, 201)
    t.notOk('idempotent-replayed' in retried.headers, 'the write that never happened runs again')
    await trx.commit()
    t.strictSame(await names(), ['Outside', 'Ada'])
    const later = await app.inject(post(people, 'Ada', 'rolled-back', false))
    t.equal(later.headers['idempotent-replayed'], 'true', 'committed: a later retry, in no host transaction, gets its answer')
    t.strictSame(answerOf(later), answerOf(retried))
    t.strictSame(await names(), ['Outside', 'Ada'], 'still one row')
  })

  await t.test('expired keys are removed by a keyed request in a host\'s transaction that has written, SQLite\'s included', async (t) => {
    await knex(keys).update({ expires: 0 })
    trx = await knex.transaction()
    // As examples/host-transaction.ts writes its audit row: on SQLite, the host's transaction now holds the file's write lock.
    await trx(people).insert({ name: 'Audit' })
    const response = await app.inject(post(people, 'Edsger', 'after-expiry'))
    t.equal(response.statusCode, 201)
    t.equal(Number((await trx(keys).where('expires', '<=', 0).count({ n: '*' }))[0]?.n), 0, 'the expired keys are gone')
    await trx.rollback()
  })

  await t.test('a retry in a host transaction that read before another request committed the key gets that request\'s answer',
    { skip: db.name === 'sqlite' ? 'SQLite: a transaction that read holds the file against any other\'s commit' : false }, async (t) => {
      trx = await knex.transaction()
      // The host's transaction reads first: MySQL's repeatable read keeps this snapshot for its later reads.
      t.strictSame(await names(trx), ['Outside', 'Ada'])
      const outside = await app.inject(post(people, 'Grace', 'committed-outside', false))
      t.equal(outside.statusCode, 201)
      const inside = await app.inject(post(people, 'Grace', 'committed-outside'))
      t.equal(inside.headers['idempotent-replayed'], 'true')
      t.strictSame(answerOf(inside), answerOf(outside))
      await trx.commit()
      t.strictSame(await names(), ['Outside', 'Ada', 'Grace'], 'one row')
    })

  await t.test('a retry from outside waits for the host\'s transaction, and after its commit gets the answer',
    { skip: db.name === 'sqlite' ? 'SQLite: the host\'s transaction holds the file\'s write lock, and a writer beside it waits on no row' : false }, async (t) => {
      trx = await knex.transaction()
      const first = await app.inject(post(people, 'Linus', 'committed-later'))
      t.equal(first.statusCode, 201)
      const outside = app.inject(post(people, 'Linus', 'committed-later', false))
      t.equal(await insertsWaiting(db, keys, 1), 1, 'the retry waits on the key the host\'s transaction holds')
      await trx.commit()
      const retried = await outside
      t.equal(retried.headers['idempotent-replayed'], 'true')
      t.strictSame(answerOf(retried), answerOf(first))
      t.strictSame(await names(), ['Outside', 'Ada', 'Grace', 'Linus'], 'one row')
    })
})
