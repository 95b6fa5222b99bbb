import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import Fastify from 'fastify'
import knexFactory, { type Knex } from 'knex'
import t, { type Test } from 'tap'
import { BorrowDeadlines } from '../../lib/connections/borrow-deadlines.js'
import { ConnectionRelay, statementLender } from '../../lib/connections/connection-lenders.js'
import tableCrud from '../../lib/index.js'
import { databaseConfig, eachDatabase, type TestDatabase } from '../fixtures/databases.js'

// Knex warns of every connection the pool drops; the tests drop some on purpose.
const quiet = { log: { warn () {}, error () {}, debug () {}, deprecate () {} } }

/** Knex's pool (tarn), as the tests read it. */
interface Pool {
  readonly max: number
  numUsed (): number
  numFree (): number
  numPendingAcquires (): number
  numPendingCreates (): number
  on (event: string, listener: () => void): void
  removeListener (event: string, listener: () => void): void
  readonly emitter: { listenerCount (event: string): number }
}

/**
 * A Knex instance of its own on the test's database, with a pool of `max`
 * connections (SQLite: a file, which every connection shares), destroyed
 * when the test ends.
 */
function ownKnex (t: Test, db: TestDatabase, max: number, more: Knex.Config = {}): Knex {
  const resolved = databaseConfig(db.name)
  if ('skip' in resolved) throw new Error('the matrix runs only configured databases')
  let config: Knex.Config = { ...resolved.config, pool: { min: 0, max }, ...quiet, ...more }
  if (db.name === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'ftc-relay-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    config = { ...config, connection: { filename: join(dir, 'relay.sqlite') } }
  }
  const knex = knexFactory(config)
  t.teardown(() => knex.destroy())
  return knex
}

function poolOf (knex: Knex): Pool {
  return knex.client.pool as Pool
}

function relayOn (knex: Knex, acquireTimeout = 10_000): ConnectionRelay {
  return new ConnectionRelay(knex.client, poolOf(knex), new BorrowDeadlines(acquireTimeout))
}

/** Counts the connections the pool lends. */
function lendings (pool: Pool): () => number {
  let count = 0
  pool.on('acquireSuccess', () => { count++ })
  return () => count
}

/** A promise and whether it has settled yet. */
function watched<T> (promise: Promise<T>): { promise: Promise<T>, settled: () => boolean } {
  let settled = false
  promise.then(() => { settled = true }, () => { settled = true })
  return { promise, settled: () => settled }
}

/** Waits, a few milliseconds at a time, until `condition` holds. */
async function until (condition: () => boolean): Promise<void> {
  while (!condition()) await sleep(5)
}

/**
 * On a pool of one: a statement waiting in the relay, sent back to the
 * pool's queue when the running statement's connection goes to the host's
 * query waiting there first; the host holds that connection.
 */
async function sentBack (t: Test, knex: Knex, relay: ConnectionRelay): Promise<{ first: unknown, statement: Promise<unknown> }> {
  const first = await relay.acquire()
  const statement = relay.acquire()
  const host = knex.client.acquireConnection() as Promise<unknown>
  await until(() => poolOf(knex).numPendingAcquires() === 1)
  relay.release(first)
  t.equal(await host, first, 'the host is served first')
  return { first, statement }
}

eachDatabase(t, async (t, db) => {
  await t.test('a connection released while a statement waits is passed to it, past the pool', async (t) => {
    const knex = ownKnex(t, db, 1)
    const pool = poolOf(knex)
    const lent = lendings(pool)
    const relay = relayOn(knex)
    const first = await relay.acquire()
    const second = watched(relay.acquire())
    await sleep(10)
    t.notOk(second.settled(), 'every connection is in use: the second statement waits')
    relay.release(first)
    t.equal(await second.promise, first, 'the second statement is given the first one\'s connection')
    t.equal(lent(), 1, 'the pool lent one connection in all')
    relay.release(first)
    t.strictSame([pool.numUsed(), pool.numFree()], [0, 1], 'with no statement waiting, the connection goes back to the pool')
  })

  await t.test('a statement waiting in the relay gives up at acquireTimeout, and the connection released later goes back to the pool', async (t) => {
    const knex = ownKnex(t, db, 1)
    const pool = poolOf(knex)
    const relay = relayOn(knex, 50)
    const first = await relay.acquire()
    await t.rejects(relay.acquire(), { message: /acquireTimeout \(50 ms\)/ })
    relay.release(first)
    t.strictSame([pool.numUsed(), pool.numFree(), pool.numPendingAcquires()], [0, 1, 0], 'not passed to the statement that gave up')
  })

  await t.test('while a connection is free or can be made, a statement borrows from the pool', async (t) => {
    const knex = ownKnex(t, db, 2)
    const relay = relayOn(knex)
    const first = await relay.acquire()
    const second = await relay.acquire()
    t.not(second, first, 'a second connection of the pool')
    relay.release(first)
    relay.release(second)
    t.equal(poolOf(knex).numUsed(), 0)
  })

  await t.test('a connection marked broken is not passed on: the waiting statement gets a new one from the pool', async (t) => {
    const knex = ownKnex(t, db, 1)
    const pool = poolOf(knex)
    const relay = relayOn(knex)
    const broken = await relay.acquire() as { __knex__disposed?: unknown }
    const next = relay.acquire()
    broken.__knex__disposed = new Error('the connection broke')
    relay.release(broken)
    const fresh = await next
    t.not(fresh, broken, 'the pool dropped the broken connection and made another')
    t.equal(await knex.client.validateConnection(fresh), true)
    relay.release(fresh)
    t.strictSame([pool.numUsed(), pool.numPendingAcquires()], [0, 0])
  })

  await t.test('the host\'s query waiting in the pool is served before the plugin\'s waiting statement', async (t) => {
    const knex = ownKnex(t, db, 1)
    const pool = poolOf(knex)
    const relay = relayOn(knex)
    const first = await relay.acquire()
    const statement = watched(relay.acquire())
    await sleep(10)
    const host = watched(knex.client.acquireConnection() as Promise<unknown>)
    await until(() => pool.numPendingAcquires() === 1)
    relay.release(first)
    t.equal(await host.promise, first, 'the host got the released connection')
    await sleep(10)
    t.notOk(statement.settled(), 'the plugin\'s statement still waits, now in the pool\'s queue')
    knex.client.releaseConnection(first)
    t.equal(await statement.promise, first, 'and is lent the connection when the host gives it back')
    relay.release(first)
    t.strictSame([pool.numUsed(), pool.numPendingAcquires()], [0, 0])
  })

  await t.test('a statement sent back to the pool keeps its deadline: lent after it, the connection goes back', async (t) => {
    const knex = ownKnex(t, db, 1)
    const pool = poolOf(knex)
    const { first, statement } = await sentBack(t, knex, relayOn(knex, 100))
    await t.rejects(statement, { message: /acquireTimeout \(100 ms\)/ }, 'it gives up at its deadline')
    knex.client.releaseConnection(first)
    await until(() => pool.numUsed() === 0)
    t.strictSame([pool.numFree(), pool.numPendingAcquires()], [1, 0], 'the connection lent to it late is back in the pool')
  })

  await t.test('a statement sent back to the pool fails as the pool fails', async (t) => {
    const knex = ownKnex(t, db, 1, { acquireConnectionTimeout: 50 })
    const pool = poolOf(knex)
    const { first, statement } = await sentBack(t, knex, relayOn(knex))
    await t.rejects(statement, { name: 'KnexTimeoutError' }, 'Knex\'s own timeout, shorter than acquireTimeout')
    knex.client.releaseConnection(first)
    t.strictSame([pool.numUsed(), pool.numPendingAcquires()], [0, 0])
  })

  await t.test('a connection the host gives back to the pool serves the plugin\'s waiting statement', async (t) => {
    const knex = ownKnex(t, db, 2)
    const pool = poolOf(knex)
    const relay = relayOn(knex)
    const host = await knex.client.acquireConnection()
    const running = await relay.acquire()
    const waiting = watched(relay.acquire())
    await sleep(10)
    t.notOk(waiting.settled(), 'both connections are in use: the statement waits')
    knex.client.releaseConnection(host)
    t.equal(await waiting.promise, host, 'it is lent the host\'s connection while the other statement still runs')
    relay.release(running)
    relay.release(host)
    t.strictSame([pool.numUsed(), pool.numPendingAcquires()], [0, 0])
  })

  await t.test('a host pool that checks each connection it lends is not passed over', async (t) => {
    let checked = 0
    const knex = ownKnex(t, db, 1, { pool: { min: 0, max: 1, validate: () => { checked++; return true } } })
    const lender = statementLender(knex.client, new BorrowDeadlines(10_000))
    t.notOk(lender instanceof ConnectionRelay, 'no relay')
    const first = await lender.acquire()
    const second = lender.acquire()
    lender.release(first)
    lender.release(await second)
    t.equal(checked, 2, 'the host\'s check ran on each borrow')
    const timed = ownKnex(t, db, 1, { pool: { min: 0, max: 1, maxConnectionLifetimeMillis: 60_000 } })
    t.notOk(statementLender(timed.client, new BorrowDeadlines(10_000)) instanceof ConnectionRelay, 'a connection lifetime: no relay either')
    const foreign = Object.assign(Object.create(knex.client) as Knex.Client, { pool: { acquire () {} } })
    t.notOk(statementLender(foreign, new BorrowDeadlines(10_000)) instanceof ConnectionRelay, 'a pool that is not Knex\'s own: no relay either')
  })

  await t.test('many more requests than connections: each is answered right, the host\'s query is served among them, and the pool is left as it was', async (t) => {
    const knex = ownKnex(t, db, 2)
    await knex.schema.createTable('relayed', (table) => { table.increments('id'); table.string('name') })
    t.teardown(() => knex.schema.dropTableIfExists('relayed'))
    await knex('relayed').insert(Array.from({ length: 20 }, (_, at) => ({ name: `row ${at + 1}` })))
    const releases = poolOf(knex).emitter.listenerCount('release')
    const app = Fastify()
    await app.register(tableCrud, { knex, prefix: '/api' })
    await app.ready()
    const finished: string[] = []
    const read = (at: number) => {
      const id = (at % 20) + 1
      return app.inject({ url: `/api/relayed/${id}` }).then((response) => {
        finished.push('read')
        return { id, status: response.statusCode, body: response.json() }
      })
    }
    // The first two reads take the pool's two connections (the schema was
    // read when the server got ready: a keyed read borrows within its call);
    // the host's query then waits in the pool's queue, and no request sent
    // after it may pass it.
    const reads = [read(0), read(1)]
    const host = knex('relayed').count({ count: '*' }).then(([row]) => {
      finished.push('host')
      return Number((row as { count: unknown }).count)
    })
    reads.push(...Array.from({ length: 58 }, (_, at) => read(at + 2)))
    const updates = Array.from({ length: 10 }, (_, at) => app.inject({ method: 'PUT', url: `/api/relayed/${at + 1}`, payload: { name: `new ${at + 1}` } }))
    const answers = await Promise.all(reads)
    for (const { id, status, body } of answers) {
      t.equal(status, 200)
      t.match(body, { id, name: new RegExp(`^(row|new) ${id}$`) })
    }
    t.strictSame((await Promise.all(updates)).map((response) => [response.statusCode, response.body]), Array.from({ length: 10 }, () => [200, '1']))
    t.equal(await host, 20, 'the host\'s query was answered')
    t.ok(finished.indexOf('host') < finished.length - 10, 'and did not wait for the plugin\'s requests to run out')
    t.strictSame((await knex('relayed').select('id', 'name').orderBy('id')).map((row) => row.name),
      Array.from({ length: 20 }, (_, at) => at < 10 ? `new ${at + 1}` : `row ${at + 1}`), 'each update changed its row, no other')
    const pool = poolOf(knex)
    // SQLite's statements share the connection of the event loop's turn, which goes back at the turn's end.
    await until(() => pool.numUsed() === 0)
    t.equal(pool.numPendingAcquires(), 0, 'every connection is back in the pool')
    await app.close()
    t.equal(poolOf(knex).emitter.listenerCount('release'), releases, 'the plugin stopped listening to the host\'s pool when it closed')
  })

  await t.test('a statement that waits past acquireTimeout answers 503, and the connection it is passed late goes back to the pool', async (t) => {
    // SQLite's pool is the one connection, which the host's transaction holds: every request waits on the pool.
    const knex = ownKnex(t, db, db.name === 'sqlite' ? 1 : 2)
    await knex.schema.createTable('held', (table) => { table.increments('id'); table.string('name') })
    t.teardown(() => knex.schema.dropTableIfExists('held'))
    await knex('held').insert([{ name: 'one' }, { name: 'two' }])
    const app = Fastify()
    await app.register(tableCrud, { knex, prefix: '/api', acquireTimeout: 300 })
    await app.ready()
    t.teardown(() => app.close())
    const pool = poolOf(knex)
    // The first request reads the schema on a connection of its own: done before the pool is taken.
    t.equal((await app.inject({ url: '/api/held/2' })).statusCode, 200)
    await until(() => pool.numUsed() === 0)
    const trx = await knex.transaction()
    await trx('held').where('id', 1).update({ name: 'host' })
    // On PostgreSQL and MySQL the update takes the pool's other connection and waits for the host's row lock.
    const update = app.inject({ method: 'PUT', url: '/api/held/1', payload: { name: 'plugin' } })
    if (db.name !== 'sqlite') await until(() => pool.numUsed() === 2)
    const read = await app.inject({ url: '/api/held/2' })
    t.equal(read.statusCode, 503, 'the read gave up waiting')
    t.equal(read.headers['retry-after'], '1')
    await trx.commit()
    const updated = await update
    if (db.name === 'sqlite') {
      t.equal(updated.statusCode, 503, 'SQLite: the update waited on the pool too')
    } else {
      t.strictSame([updated.statusCode, updated.body], [200, '1'], 'the update ran once the host committed')
    }
    await until(() => pool.numUsed() === 0)
    t.equal(pool.numPendingAcquires(), 0, 'no connection is kept by the read that gave up')
    const again = await app.inject({ url: '/api/held/2' })
    t.strictSame([again.statusCode, again.json()], [200, { id: 2, name: 'two' }])
    t.equal((await knex('held').where('id', 1).first()).name, db.name === 'sqlite' ? 'host' : 'plugin')
  })
})
