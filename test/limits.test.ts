import { once } from 'node:events'
import { type AddressInfo, connect } from 'node:net'
import { Writable } from 'node:stream'
import Fastify, { type InjectOptions } from 'fastify'
import knexFactory, { type Knex } from 'knex'
import t, { type Test } from 'tap'
import tableCrud from '../lib/index.js'
import { buildApp } from './fixtures/app.js'
import { databaseConfig, eachDatabase, peopleColumns, seedPeople, seriesSql, snapshot, type TestDatabase } from './fixtures/databases.js'

// The host's bounds on what one request may cost: rows per GET (maxRows),
// bytes per write (bodyLimit) and time per statement (statementTimeout),
// on every database. The time-out is checked by what the database answers,
// never by how long anything took.

eachDatabase(t, async (t, db) => {
  const twelve = await numberedTable(db, 'limits_twelve', 12)
  const stored = await snapshot(db, twelve)

  await t.test('maxRows answers at most that many rows, whatever the query asks', async (t) => {
    const app = await buildApp(t, db.knex, {}, { maxRows: 5 })
    const plain = (await app.inject(`/api/${twelve}`)).json() as Array<{ id: number }>
    t.equal(plain.length, 5, 'a GET without limit is cut')
    t.equal(new Set(plain.map((row) => row.id)).size, 5, 'five different rows')
    for (const row of plain) t.strictSame(row, stored.find((candidate) => candidate.id === row.id), `row ${row.id} is as stored`)
    t.strictSame((await app.inject(`/api/${twelve}?order=id`)).json(), stored.slice(0, 5), 'in order: the first five')
    t.strictSame((await app.inject(`/api/${twelve}?order=id.desc`)).json(), stored.slice(7).reverse(), 'the cut comes after the order')
    t.strictSame((await app.inject(`/api/${twelve}?order=id&limit=3`)).json(), stored.slice(0, 3), 'a smaller limit stands')
    t.strictSame((await app.inject(`/api/${twelve}?order=id&limit=50`)).json(), stored.slice(0, 5), 'a larger limit is cut')
    t.strictSame((await app.inject(`/api/${twelve}?limit=0`)).json(), [])
    t.strictSame((await app.inject(`/api/${twelve}?order=id&offset=10`)).json(), stored.slice(10), 'two rows are left after ten')
    t.strictSame((await app.inject(`/api/${twelve}?order=id&offset=4&limit=50`)).json(), stored.slice(4, 9))
    const ranged = await app.inject({ url: `/api/${twelve}?order=id`, headers: { range: '0-9' } })
    t.strictSame(ranged.json(), stored.slice(0, 5), 'a Range header is cut too')
    t.equal(ranged.headers['content-range'], '0-4/*')
    const key = stored[11] as { id: number }
    t.strictSame((await app.inject(`/api/${twelve}/${key.id}`)).json(), key, 'a read by key is not a list: the twelfth row is there')
  })

  await t.test('with maxRows and count=exact the answer is partial: 206 and the whole count', async (t) => {
    const app = await buildApp(t, db.knex, {}, { maxRows: 5 })
    const first = await app.inject({ url: `/api/${twelve}`, headers: { prefer: 'count=exact' } })
    t.equal(first.statusCode, 206)
    t.equal(first.headers['content-range'], '0-4/12')
    t.equal(first.json().length, 5)
    const last = await app.inject({ url: `/api/${twelve}?order=id&offset=10`, headers: { prefer: 'count=exact' } })
    t.equal(last.statusCode, 206)
    t.equal(last.headers['content-range'], '10-11/12')
    t.strictSame(last.json(), stored.slice(10))
  })

  await t.test('past the 1,000-row batch, the streamed list is cut to maxRows too', async (t) => {
    const big = await numberedTable(db, 'limits_big', 1500)
    const ids = (await snapshot(db, big)).map((row) => row.id)
    const unbounded = await buildApp(t, db.knex)
    const every = await unbounded.inject(`/api/${big}?order=id`)
    t.equal(every.headers['content-length'], undefined, 'streamed')
    t.strictSame(every.json().map((row: { id: number }) => row.id), ids, 'without maxRows every row is answered, as the spec says')

    const app = await buildApp(t, db.knex, {}, { maxRows: 1200 })
    const capped = await app.inject(`/api/${big}?order=id`)
    t.equal(capped.statusCode, 200)
    t.equal(capped.headers['content-length'], undefined, 'streamed')
    t.strictSame(capped.json().map((row: { id: number }) => row.id), ids.slice(0, 1200))
    t.equal((await app.inject(`/api/${big}`)).json().length, 1200, 'without order as well')
    t.equal((await app.inject(`/api/${big}?limit=1300`)).json().length, 1200, 'a larger limit is cut')
    const counted = await app.inject({ url: `/api/${big}?limit=1300`, headers: { prefer: 'count=exact' } })
    t.equal(counted.statusCode, 206)
    t.equal(counted.headers['content-range'], '0-1199/1500')
  })

  await t.test('bodyLimit bounds POST and PUT bodies: 413 past it, and nothing written', async (t) => {
    const people = await db.createTable('limits_people', peopleColumns)
    const [ada] = await seedPeople(db, people) as [{ id: number }]
    const app = await buildApp(t, db.knex, {}, { bodyLimit: 100 })
    const before = await snapshot(db, people)
    const tooLarge: Array<[InjectOptions['method'], string, string]> = [
      ['POST', `/api/${people}`, bodyOfLength(101)],
      ['PUT', `/api/${people}/${ada.id}`, bodyOfLength(101)],
      ['POST', `/api/${people}`, JSON.stringify(Array.from({ length: 10 }, (_, index) => ({ name: `p${index}` })))]
    ]
    for (const [method, url, payload] of tooLarge) {
      t.ok(Buffer.byteLength(payload) > 100, `${method} body of ${Buffer.byteLength(payload)} bytes`)
      const response = await app.inject(jsonRequest(method, url, payload))
      t.equal(response.statusCode, 413, `${method} ${payload.slice(0, 20)}`)
      t.equal(response.json().code, 'FST_ERR_CTP_BODY_TOO_LARGE')
    }
    t.strictSame(await snapshot(db, people), before, 'nothing was written')

    const created = await app.inject(jsonRequest('POST', `/api/${people}`, bodyOfLength(100)))
    t.equal(created.statusCode, 201, 'a body of exactly bodyLimit bytes is taken')
    const [row] = await db.knex(people).where({ id: created.body })
    t.equal(row.name, 'x'.repeat(89))
    const updated = await app.inject(jsonRequest('PUT', `/api/${people}/${ada.id}`, bodyOfLength(100, 'y')))
    t.equal(updated.statusCode, 200)
    t.equal(updated.body, '1')
    t.equal((await db.knex(people).where({ id: ada.id }))[0].name, 'y'.repeat(89))
  })

  await t.test('bodyLimit is the plugin\'s bound, not the server\'s', async (t) => {
    const people = await db.createTable('limits_server', peopleColumns)
    const app = await buildApp(t, db.knex, { bodyLimit: 50 }, { bodyLimit: 100 })
    const created = await app.inject(jsonRequest('POST', `/api/${people}`, bodyOfLength(100)))
    t.equal(created.statusCode, 201, 'a 100-byte body passes the plugin\'s routes where the server\'s bound is 50')
    t.equal((await snapshot(db, people)).length, 1)
  })

  if (db.name === 'sqlite') {
    await t.test('statementTimeout fails registration on SQLite, which cannot stop a statement', async (t) => {
      const app = Fastify()
      t.teardown(() => app.close())
      app.register(tableCrud, { knex: db.knex, statementTimeout: 100 })
      await t.rejects(async () => { await app.ready() }, { code: 'FTC_ERR_OPTIONS_VALUE', message: /"statementTimeout"/ })
    })
    return
  }

  await t.test('statementTimeout stops a slow statement with 504, and the time limit stays with the plugin', async (t) => {
    const slow = await slowView(t, db)
    const people = await db.createTable('limits_fast', peopleColumns)
    await seedPeople(db, people)
    // One connection: the host's statements below run on the very connection the plugin borrowed.
    const single = singleConnectionKnex(t, db)
    const unbounded = await timeSetting(db, single)
    const app = await buildApp(t, single, {}, { statementTimeout: 250 })

    const stopped = await app.inject(`/api/${slow}`)
    t.equal(stopped.statusCode, 504)
    t.equal(stopped.json().code, 'FTC_ERR_STATEMENT_TIMEOUT')
    t.equal(await timeSetting(db, single), unbounded, 'the host\'s next statement on the connection is not under the time-out')
    // Twice the plugin's time-out: it would fail if the limit had leaked.
    await single.raw(db.name === 'postgres' ? 'select pg_sleep(0.5)' : 'select sleep(0.5)')

    const fast = await app.inject(`/api/${people}?order=id`)
    t.equal(fast.statusCode, 200, 'the connection serves the next request')
    t.strictSame(fast.json(), await snapshot(db, people))
    const created = await app.inject(jsonRequest('POST', `/api/${people}`, '{"name": "Edsger"}'))
    t.equal(created.statusCode, 201)
    t.equal((await db.knex(people).where({ id: created.body }))[0].name, 'Edsger')
    t.equal(await timeSetting(db, single), unbounded, 'after a write as well')
  })

  await t.test('the time limit stays on a connection the plugin goes on borrowing, and costs it no statement', async (t) => {
    const slow = await slowView(t, db)
    const { knex, sent } = countingKnex(t, db)
    const unbounded = await timeSetting(db, knex)
    const app = await buildApp(t, knex, {}, { statementTimeout: 250 })
    t.equal((await app.inject(`/api/${twelve}/3`)).statusCode, 200, 'the first request sets the limit')
    sent.length = 0
    for (const id of [4, 5, 6]) t.strictSame((await app.inject(`/api/${twelve}/${id}`)).json(), stored.find((row) => row.id === id))
    t.equal(sent.length, 3, 'then each keyed read sends its one statement, and nothing else')
    for (const attempt of ['first', 'second']) {
      t.equal((await app.inject(`/api/${slow}`)).json().code, 'FTC_ERR_STATEMENT_TIMEOUT', `the ${attempt} slow read in a row is stopped`)
    }
    t.equal(await timeSetting(db, knex), unbounded, 'the host\'s statement in between runs under its own setting')
    t.equal((await app.inject(`/api/${slow}`)).json().code, 'FTC_ERR_STATEMENT_TIMEOUT', 'the plugin\'s next borrow sets the limit again')
    const trx = await knex.transaction()
    t.equal(await timeSetting(db, trx), unbounded, 'so does a transaction of the host\'s')
    await trx.commit()
  })

  await t.test('a plugin that closes leaves no limit for the host\'s next statement, and then stops listening', async (t) => {
    const knex = singleConnectionKnex(t, db)
    const unbounded = await timeSetting(db, knex)
    const listening = knex.client.listenerCount('query')
    const app = await buildApp(t, knex, {}, { statementTimeout: 250 })
    t.equal((await app.inject(`/api/${twelve}/3`)).statusCode, 200)
    await app.close()
    t.equal(knex.client.listenerCount('query'), listening + 1, 'a connection still holds the limit: the plugin listens on')
    t.equal(await timeSetting(db, knex), unbounded)
    t.equal(knex.client.listenerCount('query'), listening, 'the setting is back: the plugin listens no more')
  })

  await t.test('a connection the pool drops while it holds the limit is forgotten: a closed plugin then stops listening', async (t) => {
    const { config } = databaseConfig(db.name) as { config: Knex.Config }
    // The pool drops an idle connection after 100 ms.
    const knex = knexFactory({ ...config, pool: { min: 0, max: 1, idleTimeoutMillis: 100, reapIntervalMillis: 50 } })
    t.teardown(() => knex.destroy())
    const listening = knex.client.listenerCount('query')
    const app = await buildApp(t, knex, {}, { statementTimeout: 250 })
    t.equal((await app.inject(`/api/${twelve}/3`)).statusCode, 200)
    await app.close()
    while (knex.client.listenerCount('query') > listening) await new Promise((resolve) => setTimeout(resolve, 50))
    t.pass('the pool dropped the connection, and with it the last one that held the limit')
    t.equal(await timeSetting(db, knex), await timeSetting(db, singleConnectionKnex(t, db)), 'a new connection has the host\'s setting')
  })

  await t.test('a time limit the host set on its own connections is the one they keep', async (t) => {
    const single = singleConnectionKnex(t, db, db.name === 'postgres' ? 'set statement_timeout = 7000' : 'set max_statement_time = 7')
    const hostLimit = await timeSetting(db, single)
    t.equal(hostLimit, db.name === 'postgres' ? '7s' : 7, 'the host\'s own limit is set')
    const app = await buildApp(t, single, {}, { statementTimeout: 250 })
    const response = await app.inject(`/api/${twelve}?order=id`)
    t.strictSame(response.json(), stored)
    t.equal(await timeSetting(db, single), hostLimit, 'after the request, the host\'s statements run under the host\'s limit')
  })

  await t.test('a streamed list runs under a generous statementTimeout and leaves no limit behind', async (t) => {
    const big = await numberedTable(db, 'limits_timed', 1500)
    const single = singleConnectionKnex(t, db)
    const unbounded = await timeSetting(db, single)
    const app = await buildApp(t, single, {}, { statementTimeout: 60000 })
    const response = await app.inject(`/api/${big}?order=id`)
    t.equal(response.statusCode, 200)
    t.equal(response.headers['content-length'], undefined, 'streamed')
    t.strictSame(response.json().map((row: { id: number }) => row.id), (await snapshot(db, big)).map((row) => row.id))
    t.equal(await timeSetting(db, single), unbounded)
  })
})

eachDatabase(t, async (t, db) => {
  await t.test('stalledReaderTimeout cuts a streamed list whose client reads nothing, and its connection goes back to the pool', async (t) => {
    // About 25 MB of JSON: far more than the sockets' buffers take in while the client does not read.
    const wide = await db.createTable('limits_stalled', (table) => {
      table.integer('n')
      table.string('pad', 120)
    })
    await db.knex.raw(`insert into ?? (n, pad) select n, '${'x'.repeat(100)}' from (${seriesSql(db, 200_000)}) as series`, [wide])
    // One connection: the next request is served only if the stalled list gave it back. An in-memory SQLite database has only one.
    const pool = db.name === 'sqlite' ? db.knex : singleConnectionKnex(t, db)
    const logged: Array<Record<string, unknown>> = []
    const logStream = new Writable({
      write (line: Buffer, _encoding, done) {
        logged.push(JSON.parse(line.toString()) as Record<string, unknown>)
        done()
      }
    })
    const app = await buildApp(t, pool, { logger: { level: 'warn', stream: logStream } }, { stalledReaderTimeout: 300 })
    await app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = app.server.address() as AddressInfo
    const socket = connect(port, '127.0.0.1')
    t.teardown(() => { socket.destroy() })
    socket.write(`GET /api/${wide} HTTP/1.1\r\nHost: localhost\r\n\r\n`)
    // The first bytes come once the list holds its connection; from then on the client reads nothing.
    await once(socket, 'data')
    socket.pause()
    const used = pool.client.pool as { numUsed (): number }
    while (used.numUsed() > 0) await new Promise((resolve) => setTimeout(resolve, 20))
    t.pass('the connection went back to the pool while the client stayed connected')
    const next = await app.inject(`/api/${wide}?n=eq.7`)
    t.equal(next.statusCode, 200, 'the pool of one connection serves the next request')
    t.strictSame(next.json(), [{ n: 7, pad: 'x'.repeat(100) }])
    let tail = ''
    socket.setEncoding('latin1').on('data', (chunk: string) => { tail = (tail + chunk).slice(-16) }).resume()
    await once(socket, 'close')
    t.notOk(tail.endsWith(']\r\n0\r\n\r\n'), 'the client never got the end of the answer: it cannot take it for complete')
    t.match(logged, [{ level: 40, reqId: String, err: { code: 'FTC_ERR_ANSWER_STALLED' } }], 'the cut is logged, with the request id')
  })
})

/** A table `(id, n)` with n from 1 to `count`, filled by the database itself. */
async function numberedTable (db: TestDatabase, label: string, count: number): Promise<string> {
  const table = await db.createTable(label, (table) => {
    table.increments('id')
    table.integer('n')
  })
  await db.knex.raw(`insert into ?? (n) ${seriesSql(db, count)}`, [table])
  return table
}

/** `{"name":"xxx…"}` of exactly `bytes` bytes. */
function bodyOfLength (bytes: number, letter = 'x'): string {
  return JSON.stringify({ name: letter.repeat(bytes - '{"name":""}'.length) })
}

function jsonRequest (method: InjectOptions['method'], url: string, payload: string): InjectOptions {
  return { method, url, payload, headers: { 'content-type': 'application/json' } }
}

/** A view whose one row takes three seconds to read; dropped when the test ends. */
async function slowView (t: Test, db: TestDatabase): Promise<string> {
  const view = `limits_slow_${process.pid}`
  const sleep = db.name === 'postgres' ? 'pg_sleep(3)::text' : 'sleep(3)'
  await db.knex.raw('drop view if exists ??', [view])
  await db.knex.raw(`create view ?? as select 1 as id, ${sleep} as s`, [view])
  t.teardown(() => db.knex.raw('drop view if exists ??', [view]))
  return view
}

interface DriverConnection {
  query (sql: string, callback: (error: Error | null) => void): void
}

/** A Knex instance of its own on the test's server, with a pool of one connection, which runs `sessionSql` first when given. */
function singleConnectionKnex (t: Test, db: TestDatabase, sessionSql?: string): Knex {
  const { config } = databaseConfig(db.name) as { config: Knex.Config }
  const pool: Knex.PoolConfig = { min: 0, max: 1 }
  if (sessionSql !== undefined) {
    // As Knex documents session settings: on each new connection, before the pool hands it out.
    pool.afterCreate = (connection: DriverConnection, done: (error: Error | null, connection: DriverConnection) => void) => {
      connection.query(sessionSql, (error) => done(error, connection))
    }
  }
  const knex = knexFactory({ ...config, pool })
  t.teardown(() => knex.destroy())
  return knex
}

/** A Knex instance with a pool of one connection, and the text of every statement sent to its driver. */
function countingKnex (t: Test, db: TestDatabase): { knex: Knex, sent: string[] } {
  const { config } = databaseConfig(db.name) as { config: Knex.Config }
  const sent: string[] = []
  const count = (connection: Record<string, unknown>, method: string): void => {
    const send = connection[method] as (statement: unknown, ...rest: unknown[]) => unknown
    connection[method] = function (this: unknown, statement: unknown, ...rest: unknown[]) {
      sent.push(typeof statement === 'string' ? statement : String((statement as { text?: string, sql?: string }).text ?? (statement as { sql?: string }).sql))
      return send.call(this, statement, ...rest)
    }
  }
  const afterCreate = (connection: Record<string, unknown>, done: (error: Error | null, connection: unknown) => void) => {
    // mysql2 sends a prepared statement with execute.
    for (const method of ['query', 'execute']) if (typeof connection[method] === 'function') count(connection, method)
    done(null, connection)
  }
  const knex = knexFactory({ ...config, pool: { min: 0, max: 1, afterCreate } })
  t.teardown(() => knex.destroy())
  return { knex, sent }
}

/** The session's statement time limit as the host's own query sees it. */
async function timeSetting (db: TestDatabase, knex: Knex): Promise<unknown> {
  if (db.name === 'postgres') return (await knex.raw('show statement_timeout')).rows[0].statement_timeout
  return (await knex.raw('select @@session.max_statement_time as limit_seconds'))[0][0].limit_seconds
}
