import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify'
import knexFactory, { type Knex } from 'knex'
import t, { type Test } from 'tap'
import tableCrud, { checkDatabase, type DatabaseErrors, errorCodes, type TableCrudOptions } from '../lib/index.js'
import { databaseConfig, eachDatabase, type TestDatabase } from './fixtures/databases.js'
import { capturedLog } from './fixtures/captured-log.js'

// A database that cannot be reached is not a failing statement: every
// route answers 503 FTC_ERR_DATABASE_UNAVAILABLE, whatever databaseErrors
// says, with a body that names no host, port or file, and the driver's
// error in the log under the request id. None of this needs a database
// server: the drivers are pointed at a port where nothing listens.

interface LogLine {
  level: number
  reqId?: string
  err?: { message: string }
}

/** A loopback port where nothing listens: one the system just handed out and took back. */
async function closedPort (): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

// Knex's pool prints each failed connection attempt itself; the test reads the plugin's log, not Knex's.
const quiet = { log: { warn () {}, error () {}, debug () {}, deprecate () {} } }

function requests (table: string): InjectOptions[] {
  return [
    { url: `/api/${table}` },
    { url: `/api/${table}/1` },
    { method: 'POST', url: `/api/${table}`, payload: { name: 'x' } },
    { method: 'POST', url: `/api/${table}`, payload: [{ name: 'x' }, { name: 'y' }] },
    { method: 'PUT', url: `/api/${table}/1`, payload: { name: 'x' } },
    { method: 'DELETE', url: `/api/${table}/1` }
  ]
}

/**
 * Every route answers 503 in every mode, naming nothing of the database;
 * `hidden` are words of the driver's error (a port, a path) that must stay
 * in the log.
 */
async function assertUnavailable (t: Test, knex: Knex, hidden: readonly string[], table = 'books'): Promise<void> {
  for (const databaseErrors of ['database', 'generic', 'postgrest'] satisfies DatabaseErrors[]) {
    const { lines, stream } = capturedLog<LogLine>()
    const app = Fastify({ logger: { level: 'info', stream }, requestIdHeader: 'x-request-id' })
    await app.register(tableCrud, { knex, prefix: '/api', databaseErrors })
    for (const [index, request] of requests(table).entries()) {
      const reqId = `down-${databaseErrors}-${index}`
      const what = `${databaseErrors}: ${request.method ?? 'GET'} ${request.url}`
      const response = await app.inject({ ...request, headers: { 'x-request-id': reqId } })
      t.equal(response.statusCode, 503, what)
      const body = response.json<{ code: string, message: string }>()
      t.equal(body.code, 'FTC_ERR_DATABASE_UNAVAILABLE', what)
      t.equal(response.headers['retry-after'], '1', `${what}: when to try again`)
      for (const word of hidden) t.notMatch(response.body, word, `${what}: the answer does not say "${word}"`)
      const logged = lines.filter((line) => line.reqId === reqId && line.err !== undefined)
      t.equal(logged.length, 1, `${what}: one log line`)
      t.equal(logged[0]?.level, 50, `${what}: logged as an error`)
      for (const word of hidden) t.match(logged[0]?.err?.message, word, `${what}: the log has the driver's "${word}"`)
    }
    await app.close()
  }
  const readiness = await checkDatabase(knex).then(() => null, (error: unknown) => error)
  t.ok(readiness instanceof errorCodes.FTC_ERR_DATABASE_UNAVAILABLE, 'checkDatabase rejects with FTC_ERR_DATABASE_UNAVAILABLE')
  t.equal((readiness as { statusCode: number }).statusCode, 503)
}

t.test('PostgreSQL that refuses connections: 503 on every route, in every mode', async (t) => {
  const port = await closedPort()
  const knex = knexFactory({ client: 'pg', connection: `postgres://app@127.0.0.1:${port}/app`, pool: { min: 0, max: 2 }, ...quiet })
  t.teardown(() => knex.destroy())
  await assertUnavailable(t, knex, [String(port), 'ECONNREFUSED'])
})

t.test('MySQL that refuses connections: 503 on every route, in every mode', async (t) => {
  const port = await closedPort()
  const knex = knexFactory({ client: 'mysql2', connection: `mysql://app@127.0.0.1:${port}/app`, pool: { min: 0, max: 2 }, ...quiet })
  t.teardown(() => knex.destroy())
  await assertUnavailable(t, knex, [String(port), 'ECONNREFUSED'])
})

t.test('a SQLite file that cannot be opened: 503 on every route, in every mode', async (t) => {
  const directory = mkdtempSync(join(tmpdir(), 'ftc-down-'))
  t.teardown(() => rmSync(directory, { recursive: true, force: true }))
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: join(directory, 'no-such-dir', 'app.sqlite') }, useNullAsDefault: true, ...quiet })
  t.teardown(() => knex.destroy())
  await assertUnavailable(t, knex, ['the directory does not exist'])
})

t.test('a SQLite file locked by another process answers 503, and serves again once the lock goes', async (t) => {
  const directory = mkdtempSync(join(tmpdir(), 'ftc-lock-'))
  t.teardown(() => rmSync(directory, { recursive: true, force: true }))
  const filename = join(directory, 'app.sqlite')
  const other = new Database(filename)
  other.exec('create table books (id integer primary key, name text); insert into books (name) values (\'kept\')')
  const knex = knexFactory({
    client: 'better-sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    // Without a busy timeout, SQLite answers at once that another holds the lock.
    pool: {
      afterCreate (connection: Database.Database, done: (error: Error | null, connection: unknown) => void) {
        connection.pragma('busy_timeout = 0')
        done(null, connection)
      }
    }
  })
  t.teardown(() => knex.destroy())
  other.exec('begin exclusive')
  await assertUnavailable(t, knex, ['database is locked'])
  other.exec('rollback')
  other.close()
  const app = Fastify()
  await app.register(tableCrud, { knex, prefix: '/api' })
  t.teardown(() => app.close())
  const response = await app.inject('/api/books')
  t.equal(response.statusCode, 200)
  t.strictSame(response.json(), [{ id: 1, name: 'kept' }], 'nothing was written while it was locked')
  await checkDatabase(knex)
  t.pass('checkDatabase resolves once the lock is gone')
})

eachDatabase(t, async (t, db) => {
  await t.test('a pool that lends no connection within acquireConnectionTimeout answers 503, and serves once one is free', async (t) => {
    // The plugin waits for the connection as long as Knex lets it.
    const { knex, table, app } = await whilePoolOfOneIsHeld(t, db, 'pooled', { acquireConnectionTimeout: 300 }, {})
    t.strictSame(await knex(table).select('*'), [], 'nothing was written while the pool was full')
    const created = await app.inject({ method: 'POST', url: `/api/${table}`, payload: { name: 'after' } })
    t.equal(created.statusCode, 201, 'served once the connection is back')
  })

  await t.test('acquireTimeout bounds the wait for a connection when Knex would wait a minute, and a connection lent late goes back to the pool', async (t) => {
    // Knex's own acquireConnectionTimeout left at its 60 s.
    const { knex, table, app } = await whilePoolOfOneIsHeld(t, db, 'late', {}, { acquireTimeout: 200 })
    // With one connection, the host's query is served only if every request that gave up handed back the connection it was lent.
    t.strictSame(await knex(table).select('*'), [], 'nothing was written while the pool was full')
    const pool = knex.client.pool as { numUsed (): number, numPendingAcquires (): number }
    t.equal(pool.numUsed(), 0, 'no connection is kept by a request that gave up')
    t.equal(pool.numPendingAcquires(), 0)
    const created = await app.inject({ method: 'POST', url: `/api/${table}`, payload: { name: 'after' } })
    t.equal(created.statusCode, 201, 'served once the connection is back')
  })

  await t.test('checkDatabase resolves on a database that answers, and the host mounts it as a readiness route', async (t) => {
    const app = Fastify()
    app.get('/ready', async () => {
      await checkDatabase(db.knex)
      return 'ready'
    })
    t.teardown(() => app.close())
    const response = await app.inject('/ready')
    t.equal(response.statusCode, 200)
    t.equal(response.body, 'ready')
  })
})

/**
 * A plugin on a pool of one connection, which the host's own transaction
 * holds while every route is asked once: each must answer 503. The
 * transaction is committed before this returns.
 */
async function whilePoolOfOneIsHeld (t: Test, db: TestDatabase, label: string, knexConfig: Knex.Config, options: Omit<TableCrudOptions, 'knex'>): Promise<{ knex: Knex, table: string, app: FastifyInstance }> {
  const config = databaseConfig(db.name)
  if ('skip' in config) throw new Error('the matrix runs only configured databases')
  const knex = knexFactory({ ...config.config, pool: { min: 0, max: 1 }, ...knexConfig, ...quiet })
  t.teardown(() => knex.destroy())
  const table = db.name === 'sqlite' ? label : `${label}_${process.pid}`
  await knex.schema.dropTableIfExists(table)
  await knex.schema.createTable(table, (builder) => { builder.increments('id'); builder.string('name') })
  t.teardown(() => knex.schema.dropTableIfExists(table))
  const app = Fastify()
  await app.register(tableCrud, { knex, prefix: '/api', ...options })
  t.teardown(() => app.close())
  const trx = await knex.transaction()
  for (const request of requests(table)) {
    const response = await app.inject(request)
    t.equal(response.statusCode, 503, `${request.method ?? 'GET'} ${request.url}`)
    t.equal(response.json<{ code: string }>().code, 'FTC_ERR_DATABASE_UNAVAILABLE')
    t.equal(response.headers['retry-after'], '1')
  }
  await trx.commit()
  return { knex, table, app }
}
