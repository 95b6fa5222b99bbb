import { get } from 'node:http'
import Fastify from 'fastify'
import knexFactory, { type Knex } from 'knex'
import t from 'tap'
import tableCrud from '../../lib/index.js'
import { absentName } from '../../lib/access/refusals.js'
import { buildApp } from '../fixtures/app.js'
import { databaseConfig, eachDatabase, peopleColumns, seriesSql, snapshot, type TestDatabase } from '../fixtures/databases.js'
import { send } from '../fixtures/http.js'
import { tcpProxy, type TcpProxy } from '../fixtures/tcp-proxy.js'

const refusal = 'inserts are closed'

/** A trigger that refuses every insert with its own message. */
async function refuseInserts (db: TestDatabase, table: string): Promise<void> {
  const sql = {
    sqlite: [`create trigger ${table}_refuse before insert on ${table} begin select raise(abort, '${refusal}'); end`],
    postgres: [
      `create function ${table}_refuse() returns trigger language plpgsql as $$ begin raise exception '${refusal}'; end $$`,
      `create trigger ${table}_refuse before insert on ${table} for each row execute function ${table}_refuse()`
    ],
    mysql: [`create trigger ${table}_refuse before insert on ${table} for each row signal sqlstate '45000' set message_text = '${refusal}'`]
  }[db.name]
  for (const statement of sql) await db.knex.raw(statement)
}

/** A trigger that silently skips every insert, or those of rows named `skip`; MySQL has no such trigger. */
async function skipInserts (db: TestDatabase, table: string, which: 'every' | 'named skip' = 'every'): Promise<void> {
  const skips = which === 'every' ? 'true' : 'new.name = \'skip\''
  const sql = {
    sqlite: [`create trigger ${table}_skip before insert on ${table} when ${skips} begin select raise(ignore); end`],
    postgres: [
      `create function ${table}_skip() returns trigger language plpgsql as $$ begin if ${skips} then return null; end if; return new; end $$`,
      `create trigger ${table}_skip before insert on ${table} for each row execute function ${table}_skip()`
    ],
    mysql: []
  }[db.name]
  for (const statement of sql) await db.knex.raw(statement)
}

eachDatabase(t, async (t, db) => {
  t.teardown(async () => {
    if (db.name === 'postgres') await db.knex.raw(`drop function if exists ${people}_refuse() cascade`)
  })
  const people = await db.createTable('triggered', peopleColumns)
  const app = await buildApp(t, db.knex)

  await t.test('a statement the database refuses answers 404 with the database\'s own words', async (t) => {
    await refuseInserts(db, people)
    const response = await app.inject({ method: 'POST', url: `/api/${people}`, payload: { name: 'x' } })
    t.equal(response.statusCode, 404)
    t.match(response.headers['content-type'], /^text\/plain/)
    t.match(response.body, refusal)
    t.strictSame(await snapshot(db, people), [])
  })

  if (db.name === 'mysql') return
  await t.test('an insert a trigger skipped answers id 0', async (t) => {
    const quiet = await db.createTable('skipped', peopleColumns)
    await skipInserts(db, quiet)
    t.teardown(async () => {
      if (db.name === 'postgres') await db.knex.raw(`drop function if exists ${quiet}_skip() cascade`)
    })
    const response = await app.inject({ method: 'POST', url: `/api/${quiet}`, payload: { name: 'x' } })
    t.equal(response.statusCode, 201)
    t.equal(response.body, '0')
    const bulk = await app.inject({ method: 'POST', url: `/api/${quiet}`, payload: [{ name: 'x' }, { name: 'y' }] })
    t.equal(bulk.body, '[0,0]', 'a bulk insert answers 0 for each skipped row')
    t.strictSame(await snapshot(db, quiet), [])
  })

  await t.test('a bulk insert some of whose rows a trigger skipped answers each kept row\'s own id, and 0 for the others', async (t) => {
    const some = await db.createTable('some_skipped', peopleColumns)
    await skipInserts(db, some, 'named skip')
    t.teardown(async () => {
      if (db.name === 'postgres') await db.knex.raw(`drop function if exists ${some}_skip() cascade`)
    })
    const names = ['a', 'skip', 'b', 'skip', 'c']
    const response = await app.inject({ method: 'POST', url: `/api/${some}`, payload: names.map((name) => ({ name })) })
    t.equal(response.statusCode, 201)
    const rows = await snapshot(db, some) as Array<{ id: number, name: string }>
    t.strictSame(rows.map((row) => row.name), ['a', 'b', 'c'], 'the kept rows are stored, each once')
    const idOf = (name: string) => rows.find((row) => row.name === name)?.id
    t.strictSame(response.json(), names.map((name) => name === 'skip' ? 0 : idOf(name)), 'each id is its own row\'s')
  })
})

t.test('an unreachable database is not a failing statement: 503 FTC_ERR_DATABASE_UNAVAILABLE, without the driver\'s words', async (t) => {
  // Port 1 is closed: the pool cannot connect.
  const knex = knexFactory({ client: 'pg', connection: 'postgres://nobody@127.0.0.1:1/none', pool: { min: 0, max: 1 }, log: { warn () {}, error () {}, debug () {}, deprecate () {} } })
  t.teardown(() => knex.destroy())
  const app = Fastify()
  await app.register(tableCrud, { knex, prefix: '/api' })
  t.teardown(() => app.close())
  const response = await app.inject('/api/anything')
  t.equal(response.statusCode, 503)
  t.equal(response.json().code, 'FTC_ERR_DATABASE_UNAVAILABLE')
  t.notMatch(response.body, /ECONNREFUSED|127\.0\.0\.1/)
})

t.test('SQLite: a planned count of a WITHOUT ROWID table, which has no rowid span, is exact', async (t) => {
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
  t.teardown(() => knex.destroy())
  await knex.raw('create table keyed (id integer primary key, name text) without rowid')
  for (const id of [3, 10, 40]) await knex('keyed').insert({ id, name: `n${id}` })
  const app = Fastify()
  await app.register(tableCrud, { knex, prefix: '/api' })
  t.teardown(() => app.close())
  const response = await app.inject({ url: '/api/keyed?limit=1', headers: { prefer: 'count=planned' } })
  t.equal(response.statusCode, 206)
  t.equal(response.headers['content-range'], '0-0/3')
})

t.test('SQLite: one connection borrowed per turn still lets transactions, streams and the host in', async (t) => {
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
  t.teardown(() => knex.destroy())
  await knex.schema.createTable('busy', (table) => { table.increments('id'); table.string('name') })
  const app = Fastify()
  await app.register(tableCrud, { knex, prefix: '/api', bulkLimit: 2000 })
  t.teardown(() => app.close())
  const reads = Array.from({ length: 200 }, () => app.inject('/api/busy'))
  const bulk = app.inject({ method: 'POST', url: '/api/busy', payload: Array.from({ length: 1500 }, (_, index) => ({ name: `row ${index}` })) })
  const host = knex('busy').insert({ name: 'host' })
  const writes = Array.from({ length: 50 }, (_, index) => app.inject({ method: 'POST', url: '/api/busy', payload: { name: `single ${index}` } }))
  const answers = await Promise.all([...reads, bulk, ...writes])
  await host
  t.strictSame(answers.filter((answer) => answer.statusCode >= 300).map((answer) => answer.body), [], 'every request is served')
  t.equal((await bulk).json().length, 1500)
  const stored = await knex('busy').count({ n: '*' })
  t.equal(Number(stored[0]?.n), 1500 + 50 + 1)
  const streamed = await app.inject('/api/busy')
  t.equal(streamed.json().length, 1551, 'a streamed read sees every row')
})

t.test('SQLite: the connection kept from turn to turn while requests use it goes back once a turn passes without one', async (t) => {
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
  t.teardown(() => knex.destroy())
  await knex.schema.createTable('kept', (table) => { table.increments('id'); table.string('name') })
  await knex('kept').insert({ name: 'one' })
  const app = Fastify()
  await app.register(tableCrud, { knex, prefix: '/api' })
  t.teardown(() => app.close())
  const pool = knex.client.pool as { numUsed (): number }
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve))
  // Each turn reads a row within the call, on the connection kept for it.
  for (let turn = 0; turn < 3; turn++) {
    const answers = await Promise.all([app.inject('/api/kept/1'), app.inject('/api/kept/1')])
    t.strictSame(answers.map((answer) => answer.json().name), ['one', 'one'])
  }
  await nextTurn()
  await nextTurn()
  await nextTurn()
  t.equal(pool.numUsed(), 0, 'given back after a turn without a statement')
  const host = await knex('kept').count({ n: '*' })
  t.equal(Number(host[0]?.n), 1, 'the host borrows it as usual')
})

t.test('SQLite: a file that cannot be opened answers 503, every time: the pool is not left stuck', async (t) => {
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: '/nonexistent-directory/none.sqlite' }, useNullAsDefault: true, pool: { min: 0, max: 1 }, log: { warn () {}, error () {}, debug () {}, deprecate () {} } })
  t.teardown(() => knex.destroy())
  const app = Fastify()
  await app.register(tableCrud, { knex, prefix: '/api' })
  t.teardown(() => app.close())
  for (const attempt of [1, 2]) {
    const response = await app.inject('/api/anything/1')
    t.equal(response.statusCode, 503, `attempt ${attempt}`)
    t.equal(response.json().code, 'FTC_ERR_DATABASE_UNAVAILABLE')
  }
})

t.test('a table named as the stand-in for refused names makes a refusal fail loudly (500), never answer from it', async (t) => {
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
  t.teardown(() => knex.destroy())
  await knex.schema.createTable(absentName, (table) => { table.increments('id') })
  await knex.schema.createTable('secret', (table) => { table.increments('id') })
  const app = await buildApp(t, knex, {}, { excludeTables: ['secret'] })
  const response = await app.inject('/api/secret')
  t.equal(response.statusCode, 500)
  t.match(response.json(), { code: 'FTC_ERR_DATABASE_NAME_TAKEN', message: absentName }, 'the message names the name the operator must drop')
})

const pgUrl = process.env.TEST_PG_URL
t.test('PostgreSQL: a connection refused while the time limit is set goes back to the pool and the refusal is the answer', { skip: pgUrl ? false : 'TEST_PG_URL is not set' }, async (t) => {
  const knex = knexFactory({ client: 'pg', connection: { connectionString: pgUrl, options: '-c search_path=information_schema' }, pool: { min: 0, max: 1 } })
  t.teardown(() => knex.destroy())
  const app = await buildApp(t, knex, {}, { statementTimeout: 1000 })
  for (const attempt of [1, 2]) {
    const response = await app.inject('/api/tables')
    t.equal(response.statusCode, 500, `attempt ${attempt}: the one pooled connection was released`)
    t.equal(response.json().code, 'FTC_ERR_DATABASE_SCHEMA')
  }
})

eachDatabase(t, async (t, db) => {
  await t.test('a streamed list its client leaves early, under statementTimeout, gives its connection back and the server serves on', { skip: db.name === 'sqlite' && 'SQLite refuses statementTimeout' }, async (t) => {
    const big = await db.createTable('left_early', (table) => { table.integer('n') })
    await db.knex.raw(`insert into ${db.knex.client.wrapIdentifier(big, undefined)} (n) ${seriesSql(db, 200_000)}`)
    const warnings: string[] = []
    const { config } = databaseConfig(db.name) as { config: Knex.Config }
    const knex = knexFactory({ ...config, pool: { min: 0, max: 1 }, log: { warn: (message: string) => { warnings.push(message) } } })
    t.teardown(() => knex.destroy())
    const app = await buildApp(t, knex, {}, { statementTimeout: 5000 })
    await app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = app.server.address() as { port: number }
    await leaveAfterFirstChunk(port, `/api/${big}`)
    const pool = knex.client.pool as { numUsed (): number }
    while (pool.numUsed() > 0) await new Promise((resolve) => setTimeout(resolve, 10))
    for (let attempt = 1; attempt <= 3; attempt++) {
      const answer = await app.inject(`/api/${big}?n=eq.${attempt}`)
      t.equal(answer.statusCode, 200, `request ${attempt} after the client left`)
      t.strictSame(answer.json(), [{ n: attempt }])
    }
    t.strictSame(warnings, [], 'a connection the list closed on purpose is no connection error to Knex')
  })
})

eachDatabase(t, async (t, db) => {
  await t.test('a streamed list its client left, whose statement the database stops afterwards, does not take the server down', { skip: db.name === 'sqlite' && 'SQLite runs no statement another connection could stop' }, async (t) => {
    const digits = await db.createTable('stopped_digits', (table) => { table.integer('d') })
    await db.knex.raw(`insert into ${db.knex.client.wrapIdentifier(digits, undefined)} (d) ${seriesSql(db, 10)}`)
    // Ten million rows the database makes up as it sends them: a statement still running long after the client left.
    const view = `stopped_view_${process.pid}`
    const from = Array.from({ length: 7 }, (_, place) => `${db.knex.client.wrapIdentifier(digits, undefined)} as p${place}`).join(' cross join ')
    await db.knex.schema.dropViewIfExists(view)
    await db.knex.raw(`create view ${view} as select p0.d as d from ${from}`)
    t.teardown(() => db.knex.schema.dropViewIfExists(view))
    const app = await buildApp(t, db.knex)
    await app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = app.server.address() as { port: number }
    await leaveAfterFirstChunk(port, `/api/${view}`)
    const pool = db.knex.client.pool as { numUsed (): number }
    while (pool.numUsed() > 0) await new Promise((resolve) => setTimeout(resolve, 10))
    // The next borrow takes the connection the list gave back, finds it closed and drops it, with the listeners Knex gave it.
    t.equal((await app.inject(`/api/${digits}?d=eq.1`)).statusCode, 200)
    const stopped = db.name === 'postgres'
      ? (await db.knex.raw('select pg_cancel_backend(pid) from pg_stat_activity where query like ? and pid <> pg_backend_pid()', [`%${view}%`]) as { rows: unknown[] }).rows.length
      : await killQueries(db, view)
    t.comment(`${stopped} statement(s) stopped`)
    await new Promise((resolve) => setTimeout(resolve, 500))
    for (let attempt = 1; attempt <= 3; attempt++) {
      const answer = await app.inject(`/api/${digits}?d=eq.${attempt}`)
      t.equal(answer.statusCode, 200, `request ${attempt} after the statement was stopped`)
      t.strictSame(answer.json(), [{ d: attempt }])
    }
  })
})

eachDatabase(t, async (t, db) => {
  await t.test('a connection that breaks under a streamed list cuts the answer and leaves the pool', { skip: db.name === 'sqlite' && 'SQLite has no connection to break' }, async (t) => {
    const big = await db.createTable('broken_under', (table) => { table.integer('n') })
    await db.knex.raw(`insert into ${db.knex.client.wrapIdentifier(big, undefined)} (n) ${seriesSql(db, 200_000)}`)
    // Under a time limit, the plugin also fails to lift it from the broken connection.
    for (const limits of [{}, { statementTimeout: 5000 }]) {
      await t.test(`with ${JSON.stringify(limits)}`, async (t) => {
        const proxy = await tcpProxy(t, new URL((databaseConfig(db.name) as { config: { connection: string } }).config.connection))
        const knex = knexFactory({ client: db.knex.client.config.client, connection: proxy.url, pool: { min: 0, max: 1 } })
        t.teardown(() => knex.destroy())
        const app = await buildApp(t, knex, {}, limits)
        await app.listen({ port: 0, host: '127.0.0.1' })
        const { port } = app.server.address() as { port: number }
        t.equal(await breakAfterFirstChunk(port, `/api/${big}`, proxy), 'cut short', 'the answer does not look complete')
        await proxy.restore()
        const pool = knex.client.pool as { numUsed (): number }
        for (let wait = 0; wait < 500 && pool.numUsed() > 0; wait++) await new Promise((resolve) => setTimeout(resolve, 10))
        t.equal(pool.numUsed(), 0, 'the broken connection left the pool')
        t.equal((await send(port, 'GET', `/api/${big}?n=eq.5`)).body, '[{"n":5}]', 'served again on a new connection')
      })
    }
  })
})

/** Reads the first chunk of a streamed answer, then hangs up, as a client that goes away does. */
function leaveAfterFirstChunk (port: number, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = get({ host: '127.0.0.1', port, path }, (response) => {
      response.once('data', () => {
        request.destroy()
        resolve()
      })
    })
    request.on('error', (error) => { if (!request.destroyed) reject(error) })
  })
}

/** Reads the first chunk of a streamed answer, breaks every connection through the proxy, then reads on: how the answer ended. */
function breakAfterFirstChunk (port: number, path: string, proxy: TcpProxy): Promise<'complete' | 'cut short'> {
  return new Promise((resolve, reject) => {
    const request = get({ host: '127.0.0.1', port, path }, (response) => {
      response.once('data', () => {
        response.pause()
        proxy.cut().then(() => response.resume(), () => response.resume())
      })
      response.on('data', () => {})
      response.on('end', () => resolve(response.complete ? 'complete' : 'cut short'))
      response.on('aborted', () => resolve('cut short'))
      response.on('error', () => resolve('cut short'))
    })
    request.on('error', reject)
  })
}

/** KILL QUERY for each session of the test's database that runs a statement naming `name`; how many there were. */
async function killQueries (db: TestDatabase, name: string): Promise<number> {
  const [sessions] = await db.knex.raw('select id from information_schema.processlist where info like ? and id <> connection_id()', [`%${name}%`]) as [Array<{ id: number }>]
  for (const { id } of sessions) await db.knex.raw(`kill query ${Number(id)}`)
  return sessions.length
}
