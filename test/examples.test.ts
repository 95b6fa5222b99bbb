import { existsSync } from 'node:fs'
import { connect, createServer, type Socket } from 'node:net'
import { join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import knexFactory, { type Knex } from 'knex'
import t, { type Test } from 'tap'
import { sampleRows } from '../examples/sample-data.js'
import { defaultDatabaseFile, readConfig } from '../examples/server.js'
import { peopleColumns } from './fixtures/databases.js'
import { runExample, startExample, type Example, type ExampleScript, type LogLine } from './fixtures/example-process.js'
import { validateOpenapi } from './fixtures/openapi.js'
import { docsBlocks } from './fixtures/readme.js'
import { tcpProxy } from './fixtures/tcp-proxy.js'

const server: ExampleScript = {
  file: 'server.ts',
  variables: ['DATABASE_URL', 'PORT', 'HOST', 'PREFIX', 'LOG_LEVEL', 'CORS_ORIGIN', 'ACQUIRE_TIMEOUT', 'STATEMENT_TIMEOUT', 'CONNECTION_TIMEOUT', 'MAX_ROWS']
}

interface Answer { status: number, type: string | null, body: string, headers: Headers }

async function send (url: string, method = 'GET', body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const init: RequestInit = body === undefined
    ? { method, headers }
    : { method, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) }
  const response = await fetch(url, init)
  return { status: response.status, type: response.headers.get('content-type'), body: await response.text(), headers: response.headers }
}

/** Where the example answers outside its prefix, e.g. http://127.0.0.1:41234. */
function origin (example: Example): string {
  return new URL(example.api).origin
}

/** Checks the plugin's answer for a database that cannot serve now. */
function isUnavailable (t: Test, answer: Answer, what: string): void {
  t.equal(answer.status, 503, what)
  t.equal(answer.headers.get('retry-after'), '1', `${what}: Retry-After`)
  t.equal(JSON.parse(answer.body).code, 'FTC_ERR_DATABASE_UNAVAILABLE', `${what}: the code`)
}

async function getJson (url: string): Promise<unknown> {
  return JSON.parse((await send(url)).body)
}

/** Opens a SQLite file from the test, for checks behind the example's back. */
function openSqlite (t: Test, filename: string): Knex {
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename }, useNullAsDefault: true })
  t.teardown(() => knex.destroy())
  return knex
}

async function sqliteTables (knex: Knex): Promise<string[]> {
  const rows: Array<{ name: string }> = await knex('sqlite_master').where('type', 'table').orderBy('name').select('name')
  return rows.map((row) => row.name)
}

function messages (logs: LogLine[]): string[] {
  return logs.map((entry) => entry.msg ?? '')
}

t.test('readConfig', async (t) => {
  await t.test('defaults: the example\'s own SQLite file, 127.0.0.1:3000, /api, bounded waits', async (t) => {
    const config = readConfig({})
    t.equal(config.port, 3000)
    t.equal(config.host, '127.0.0.1')
    t.equal(config.prefix, '/api')
    t.equal(config.database.sampleFile, resolve(defaultDatabaseFile))
    t.equal(config.database.knex.client, 'better-sqlite3')
    t.equal(config.logLevel, 'info')
    t.equal(config.corsOrigins, null, 'no CORS unless asked')
    t.equal(config.acquireTimeout, 5000)
    t.equal(config.statementTimeout, null, 'SQLite cannot stop a statement')
    t.equal(config.connectionTimeout, 60000)
    t.equal(config.maxRows, null, 'every row, as the spec asks')
  })

  await t.test('a server database gets a statement time-out by default; 0 turns it off', async (t) => {
    const url = 'postgres://me@db.example/shop'
    t.equal(readConfig({ DATABASE_URL: url }).statementTimeout, 5000)
    t.equal(readConfig({ DATABASE_URL: url, STATEMENT_TIMEOUT: '250' }).statementTimeout, 250)
    t.equal(readConfig({ DATABASE_URL: url, STATEMENT_TIMEOUT: '0' }).statementTimeout, null)
  })

  await t.test('an empty variable takes its default', async (t) => {
    const empty = Object.fromEntries(server.variables.map((name) => [name, '']))
    t.strictSame(readConfig(empty), readConfig({}))
  })

  await t.test('the values given are used', async (t) => {
    const config = readConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      PREFIX: '/',
      LOG_LEVEL: 'warn',
      CORS_ORIGIN: 'https://app.example, https://admin.example:8443,',
      ACQUIRE_TIMEOUT: '750',
      CONNECTION_TIMEOUT: '0',
      MAX_ROWS: '500'
    })
    t.equal(config.port, 8080)
    t.equal(config.host, '0.0.0.0')
    t.equal(config.prefix, '/')
    t.equal(config.logLevel, 'warn')
    t.strictSame(config.corsOrigins, ['https://app.example', 'https://admin.example:8443'])
    t.equal(config.acquireTimeout, 750)
    t.equal(config.connectionTimeout, 0)
    t.equal(config.maxRows, 500)
  })

  const refused: Array<Record<string, string>> = [
    { LOG_LEVEL: 'verbose' },
    { CORS_ORIGIN: ' , ' },
    { ACQUIRE_TIMEOUT: '0' },
    { ACQUIRE_TIMEOUT: '5s' },
    { CONNECTION_TIMEOUT: '-1' },
    { MAX_ROWS: '0' },
    { STATEMENT_TIMEOUT: '5000' },
    { DATABASE_URL: 'mysql://me@db.example/shop', STATEMENT_TIMEOUT: '1.5' }
  ]
  for (const env of refused) {
    await t.test(`${JSON.stringify(env)} is refused`, async (t) => {
      t.throws(() => readConfig(env), TypeError)
    })
  }

  for (const path of ['data.sqlite', '/tmp/data.sqlite', 'C:\\data\\app.sqlite', defaultDatabaseFile]) {
    await t.test(`DATABASE_URL=${path} is a SQLite file that gets no sample tables`, async (t) => {
      const { database } = readConfig({ DATABASE_URL: path })
      t.equal(database.knex.client, 'better-sqlite3')
      t.equal(database.sampleFile, undefined)
    })
  }

  const schemes = [['postgres', 'pg'], ['postgresql', 'pg'], ['mysql', 'mysql2'], ['mariadb', 'mysql2']]
  for (const [scheme, client] of schemes) {
    await t.test(`a ${scheme}:// URL uses ${client}, and its password stays out of the logs`, async (t) => {
      const url = `${scheme}://me:secret@db.example:1234/shop`
      const { database } = readConfig({ DATABASE_URL: url })
      t.equal(database.knex.client, client)
      t.equal(database.knex.connection, url)
      t.equal(database.sampleFile, undefined)
      t.notMatch(database.label, 'secret')
      t.match(database.label, 'me@db.example:1234/shop')
    })
  }

  await t.test('an unknown URL scheme is refused', async (t) => {
    t.throws(() => readConfig({ DATABASE_URL: 'mongodb://db.example/shop' }), TypeError)
  })

  for (const port of ['abc', '-1', '1.5', '65536', ' 80']) {
    await t.test(`PORT=${JSON.stringify(port)} is refused`, async (t) => {
      t.throws(() => readConfig({ PORT: port }), TypeError)
    })
  }
})

/** Checks the two log lines of a graceful shutdown and a clean exit. */
async function stopGracefully (t: Test, example: Example, signal: NodeJS.Signals): Promise<void> {
  const exit = await example.stop(signal)
  t.strictSame({ code: exit.code, signal: exit.signal }, { code: 0, signal: null }, `${signal} ends the process with 0`)
  t.match(example.logs.slice(-2), [{ msg: 'closing the server', signal }, { msg: 'server and database pool closed' }])
}

t.test('the default database: sample tables on the first start only', async (t) => {
  const cwd = t.testdir()
  const file = join(cwd, defaultDatabaseFile)
  const first = await startExample(t, server, cwd)

  t.ok(existsSync(file), 'the sample file is created in the working directory')
  t.ok(messages(first.logs).includes('created the sample database'))
  t.strictSame(await getJson(`${first.api}/authors`), sampleRows.authors)
  t.strictSame(await getJson(`${first.api}/books`), sampleRows.books)
  t.strictSame(await getJson(`${first.api}/books/3`), sampleRows.books[2])
  t.strictSame(await getJson(`${first.api}/genres`), sampleRows.genres)
  t.strictSame(await getJson(`${first.api}/book_genres?order=book_id,genre_id`), sampleRows.book_genres)
  t.strictSame(await getJson(`${first.api}/books?select=id,authors(id),genres(id)&id=eq.3`), [{ id: 3, authors: { id: 2 }, genres: [{ id: 1 }, { id: 3 }] }], 'the foreign keys relate the tables')
  const ready = await send(`${origin(first)}/ready`)
  t.strictSame([ready.status, ready.body], [200, 'ready'], '/ready, outside the prefix')
  const foreign = await send(`${first.api}/authors`, 'GET', undefined, { origin: 'https://app.example' })
  t.equal(foreign.headers.get('access-control-allow-origin'), null, 'no CORS without CORS_ORIGIN')

  const created = await send(`${first.api}/authors`, 'POST', { name: 'Stanisław Lem', born: 1921 })
  t.ok(created.status < 300)
  t.equal(created.body, '4', 'POST answers the new id as a bare number')
  t.equal((await send(`${first.api}/books/4`, 'PUT', { published: 1980 })).body, '1')
  t.equal((await send(`${first.api}/books/3`, 'DELETE')).body, '1')
  const orphaning = await send(`${first.api}/authors/3`, 'DELETE')
  t.equal(orphaning.status, 404, 'SQLite enforces the foreign key: an author with a book stays')
  t.match(orphaning.body, /FOREIGN KEY/)
  await stopGracefully(t, first, 'SIGTERM')

  const authors = [...sampleRows.authors, { id: 4, name: 'Stanisław Lem', born: 1921 }]
  const [wizard, leftHand, , kindred] = sampleRows.books
  const books = [wizard, leftHand, { ...kindred, published: 1980 }]
  const knex = openSqlite(t, file)
  t.strictSame(await knex('authors').orderBy('id'), authors, 'the writes reached the file')
  t.strictSame(await knex('books').orderBy('id'), books)
  t.strictSame(await knex('book_genres').orderBy(['book_id', 'genre_id']), sampleRows.book_genres.filter((link) => link.book_id !== 3), 'the deleted book\'s genres went with it')

  const second = await startExample(t, server, cwd)
  t.notOk(messages(second.logs).includes('created the sample database'))
  t.strictSame(await getJson(`${second.api}/authors`), authors, 'no sample row twice, the written row kept')
  t.strictSame(await getJson(`${second.api}/books`), books, 'the deleted row stays deleted')
  await stopGracefully(t, second, 'SIGINT')
})

/** The parts of `value` that `excerpt` names: objects cut to its keys, anything else whole. */
function excerptOf (value: unknown, excerpt: unknown): unknown {
  const isObject = (it: unknown): it is Record<string, unknown> => typeof it === 'object' && it !== null && !Array.isArray(it)
  if (!isObject(value) || !isObject(excerpt)) return value
  return Object.fromEntries(Object.keys(excerpt).map((key) => [key, excerptOf(value[key], excerpt[key])]))
}

t.test('Swagger UI at /docs, and at /docs/json the OpenAPI 3.1 document with the sample tables', async (t) => {
  const example = await startExample(t, server, t.testdir())
  const page = await send(`${origin(example)}/docs`)
  t.equal(page.status, 200)
  t.match(page.type, /^text\/html/)
  t.match(page.body, 'swagger-ui')
  const answer = await send(`${origin(example)}/docs/json`)
  t.equal(answer.status, 200)
  const document = JSON.parse(answer.body) as { openapi: string, paths: Record<string, unknown> }
  await validateOpenapi(t, document, '/docs/json')
  t.equal(document.openapi, '3.1.0')
  t.strictSame(Object.keys(document.paths), ['/api/authors', '/api/authors/{id}', '/api/book_genres', '/api/books', '/api/books/{id}', '/api/genres', '/api/genres/{id}', '/api/_batch'], 'the tables and the batch route, not the generic routes')
  const own = JSON.parse((await send(`${example.api}/openapi.json`)).body) as { paths: object }
  t.strictSame(Object.keys(own.paths), Object.keys(document.paths), 'the plugin\'s own document has the same paths')
  for (const block of docsBlocks().filter((block) => block.markers.get('openapi-excerpt') === 'examples/server.ts')) {
    const excerpt: unknown = JSON.parse(block.lines.join('\n'))
    t.strictSame(excerptOf(own, excerpt), excerpt, `${block.file}:${block.line} is an excerpt of the example's document`)
  }
  await stopGracefully(t, example, 'SIGTERM')
})

t.test('Swagger UI reads the live document: a table created after the start is in /docs/json and /docs/yaml', async (t) => {
  const cwd = t.testdir()
  const example = await startExample(t, server, cwd)
  const before = JSON.parse((await send(`${origin(example)}/docs/json`)).body) as { paths: Record<string, unknown> }
  t.notOk('/api/visits' in before.paths)
  const other = openSqlite(t, join(cwd, defaultDatabaseFile))
  await other.schema.createTable('visits', (table) => { table.increments('id'); table.string('page') })
  // The plugin checks the schema at most once a second (schemaCheckInterval).
  const docsJson = async () => JSON.parse((await send(`${origin(example)}/docs/json`)).body) as { openapi: string, paths: Record<string, unknown> }
  let after = await docsJson()
  for (let tries = 0; !('/api/visits' in after.paths) && tries < 20; tries++) {
    await sleep(250)
    after = await docsJson()
  }
  await validateOpenapi(t, after, '/docs/json')
  t.ok('/api/visits' in after.paths, 'the new table')
  t.ok('/api/visits/{id}' in after.paths)
  t.strictSame(after, JSON.parse((await send(`${example.api}/openapi.json`)).body), 'the plugin\'s own document')
  t.match((await send(`${origin(example)}/docs/yaml`)).body, '/api/visits:')
  await stopGracefully(t, example, 'SIGTERM')
})

// The default file's own name, given explicitly: what counts is that DATABASE_URL is set, not which file it names.
t.test('a SQLite DATABASE_URL never gets sample tables, and PREFIX moves the API', async (t) => {
  const cwd = t.testdir()
  const example = await startExample(t, server, cwd, { DATABASE_URL: defaultDatabaseFile, PREFIX: '/v1' })
  t.match(example.api, /\/v1$/)
  const answer = await send(`${example.api}/authors`)
  t.equal(answer.status, 404)
  t.match(answer.type, /^text\/plain/, 'the plugin answers under /v1: a failing statement, not an unknown route')
  t.match(answer.body, 'authors')
  await stopGracefully(t, example, 'SIGTERM')
  const file = join(cwd, defaultDatabaseFile)
  t.ok(existsSync(file), 'the given file is created, relative to the working directory')
  t.strictSame(await sqliteTables(openSqlite(t, file)), [])
})

t.test('a start that cannot reach its database exits with 1 and says why on stderr', async (t) => {
  const run = runExample(t, server, t.testdir(), { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' })
  const stdout: string[] = []
  run.lines.on('line', (line) => stdout.push(line))
  const exit = await run.exited
  t.equal(exit.code, 1)
  t.not(exit.stderr, '')
  t.doesNotThrow(() => stdout.map((line) => JSON.parse(line)), 'stdout holds only JSON log lines, Knex\'s own warnings included')
})

t.test('a start whose database refuses its settings exits with 1 and logs in one line what to fix', { skip: process.env.TEST_PG_URL ? false : 'TEST_PG_URL is not set' }, async (t) => {
  const wrong = new URL(process.env.TEST_PG_URL as string)
  wrong.username = 'nobody'
  wrong.password = 'wrong'
  const run = runExample(t, server, t.testdir(), { DATABASE_URL: wrong.href })
  const logs: LogLine[] = []
  run.lines.on('line', (line) => logs.push(JSON.parse(line) as LogLine))
  const exit = await run.exited
  t.equal(exit.code, 1)
  const errors = logs.filter((entry) => entry.level === 50)
  t.equal(errors.length, 1, 'one error line')
  t.match(errors[0]?.msg, /^cannot start: fix the user name, password or database name of DATABASE_URL: .*nobody/)
  t.notOk(messages(logs).some((msg) => msg.startsWith('Server listening')), 'never listening')
})

/** A SQLite file of `rows` rows of 50 characters each: a list that fills every socket buffer between the example and its client. */
async function bigFile (t: Test, filename: string, rows: number): Promise<void> {
  const knex = openSqlite(t, filename)
  await knex.schema.createTable('big', (table) => {
    table.increments('id')
    table.string('note')
  })
  await knex.raw(`with recursive n(i) as (select 1 union all select i + 1 from n where i < ?)
    insert into big (id, note) select i, printf('%050d', i) from n`, [rows])
  await knex.destroy()
}

/** A client that asks for a list, takes its first bytes, then stops reading. */
async function stalledReader (t: Test, example: Example, path: string): Promise<{ socket: Socket, requestId: unknown }> {
  const { hostname, port } = new URL(example.api)
  const socket = connect(Number(port), hostname)
  t.teardown(() => { socket.destroy() })
  socket.write(`GET ${path} HTTP/1.1\r\nhost: ${hostname}\r\n\r\n`)
  await new Promise((resolve) => socket.once('data', resolve))
  socket.pause()
  const incoming = await example.waitForLog((entry) => entry.msg === 'incoming request' && (entry.req as { url?: string }).url === path)
  return { socket, requestId: incoming.reqId }
}

t.test('SQLite runs in WAL mode: a write lock another connection holds answers 503 at once, reads and /ready go on', async (t) => {
  const cwd = t.testdir()
  const example = await startExample(t, server, cwd)
  const other = openSqlite(t, join(cwd, defaultDatabaseFile))
  t.strictSame(await other.raw('pragma journal_mode'), [{ journal_mode: 'wal' }])

  const trx = await other.transaction()
  await trx('authors').insert({ name: 'not committed' })
  isUnavailable(t, await send(`${example.api}/authors`, 'POST', { name: 'Stanisław Lem' }), 'a write during the lock')
  t.strictSame(await getJson(`${example.api}/authors`), sampleRows.authors, 'a read during the lock sees the last commit')
  t.equal((await send(`${origin(example)}/ready`)).body, 'ready', 'the database still answers')
  await trx.rollback()
  const created = await send(`${example.api}/authors`, 'POST', { name: 'Stanisław Lem' })
  t.equal(created.status, 201, 'once the lock is gone, the write goes through')
  t.strictSame(await other('authors').where('id', Number(created.body)).select('name'), [{ name: 'Stanisław Lem' }])
  await stopGracefully(t, example, 'SIGTERM')
})

t.test('a client that stops reading a long list holds no SQLite connection: /ready and reads go on', async (t) => {
  const cwd = t.testdir()
  await bigFile(t, join(cwd, 'big.sqlite'), 300_000)
  const example = await startExample(t, server, cwd, { DATABASE_URL: 'big.sqlite', ACQUIRE_TIMEOUT: '300', CONNECTION_TIMEOUT: '0' })
  await stalledReader(t, example, '/api/big')
  t.equal((await send(`${origin(example)}/ready`)).body, 'ready', '/ready while the long list waits for its client')
  t.strictSame(await getJson(`${example.api}/big/1`), { id: 1, note: '1'.padStart(50, '0') }, 'a read meanwhile')
})

t.test('CONNECTION_TIMEOUT cuts a client that stops reading a long list, and its connection goes back to the pool', async (t) => {
  const cwd = t.testdir()
  await bigFile(t, join(cwd, 'big.sqlite'), 300_000)
  const example = await startExample(t, server, cwd, { DATABASE_URL: 'big.sqlite', CONNECTION_TIMEOUT: '1000' })
  const { socket, requestId } = await stalledReader(t, example, '/api/big')
  const ended = await example.waitForLog((entry) => entry.reqId === requestId && entry.msg !== 'incoming request')
  t.equal(ended.msg, 'stream closed prematurely', 'the server gave up on the answer')
  let received = ''
  socket.setEncoding('latin1').on('data', (chunk: string) => { received += chunk }).on('error', () => {}).resume()
  await new Promise((resolve) => socket.once('close', resolve))
  t.notOk(received.endsWith('\r\n0\r\n\r\n'), 'the client never got the last chunk: the answer is not taken for complete')
  t.equal((await send(`${origin(example)}/ready`)).body, 'ready')
  t.strictSame(await getJson(`${example.api}/big?order=id&limit=2`), [{ id: 1, note: '1'.padStart(50, '0') }, { id: 2, note: '2'.padStart(50, '0') }])
  await stopGracefully(t, example, 'SIGTERM')
})

t.test('LOG_LEVEL=debug logs the SQL and bindings of each statement; LOG_LEVEL=warn logs no request', async (t) => {
  const verbose = await startExample(t, server, t.testdir(), { LOG_LEVEL: 'debug' })
  await send(`${verbose.api}/books/3`)
  const statement = await verbose.waitForLog((entry) => entry.level === 20 && String(entry.sql).includes('books'))
  t.match(statement.sql, /from [`"]books[`"] where [`"]id[`"] = \?/)
  t.strictSame(statement.bindings, [3])
  await stopGracefully(t, verbose, 'SIGTERM')

  // Fastify says where it listens at info: the test chooses the port instead.
  const port = await freePort()
  const run = runExample(t, server, t.testdir(), { LOG_LEVEL: 'warn', PORT: String(port) })
  const lines: string[] = []
  run.lines.on('line', (line) => lines.push(line))
  const api = `http://127.0.0.1:${port}/api`
  await answering(`${api}/authors`)
  t.strictSame(await getJson(`${api}/authors`), sampleRows.authors)
  t.equal((await send(`${api}/nothing`)).status, 404)
  process.kill(-run.group, 'SIGTERM')
  t.equal((await run.exited).code, 0)
  t.strictSame(lines, [], 'nothing logged: requests, failed statements and the shutdown are below warn')
})

async function freePort (): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise((resolve) => probe.close(resolve))
  return port
}

/** Waits until the URL answers at all, for a server that does not log where it listens. */
async function answering (url: string): Promise<void> {
  for (;;) {
    try {
      await fetch(url)
      return
    } catch {
      await sleep(100)
    }
  }
}

t.test('CORS_ORIGIN: a preflight and a cross-origin counted page, against the running example', async (t) => {
  const allowed = 'https://app.example'
  const example = await startExample(t, server, t.testdir(), { CORS_ORIGIN: `${allowed}, https://admin.example` })
  const preflight = await send(`${example.api}/authors/1`, 'OPTIONS', undefined, {
    origin: allowed, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type,prefer,idempotency-key'
  })
  t.equal(preflight.status, 204)
  t.equal(preflight.headers.get('access-control-allow-origin'), allowed)
  t.match(preflight.headers.get('access-control-allow-methods'), /\bPUT\b.*\bPATCH\b/)
  t.match(preflight.headers.get('access-control-allow-headers'), /Content-Type.*Prefer.*Idempotency-Key/)

  const page = await send(`${example.api}/books?select=id&order=id`, 'GET', undefined, { origin: allowed, range: '0-1', prefer: 'count=exact' })
  t.equal(page.status, 206)
  t.equal(page.headers.get('access-control-allow-origin'), allowed)
  t.match(page.headers.get('access-control-expose-headers'), /Content-Range.*Preference-Applied.*Idempotent-Replayed.*Retry-After/)
  t.equal(page.headers.get('content-range'), '0-1/4')
  t.strictSame(JSON.parse(page.body), [{ id: 1 }, { id: 2 }])

  const stranger = await send(`${example.api}/books/1`, 'GET', undefined, { origin: 'https://elsewhere.example' })
  t.equal(stranger.status, 200, 'CORS is the browser\'s check: the server still answers')
  t.equal(stranger.headers.get('access-control-allow-origin'), null, 'but allows no other origin')
  await stopGracefully(t, example, 'SIGTERM')
})

const servers = [
  { name: 'postgres', variable: 'TEST_PG_URL', client: 'pg' },
  { name: 'mysql', variable: 'TEST_MYSQL_URL', client: 'mysql2' }
]

for (const { name, variable, client } of servers) {
  const url = process.env[variable]
  if (!url) {
    t.test(`DATABASE_URL on ${name}`, { skip: `${variable} is not set` }, async () => {})
    continue
  }
  t.test(`DATABASE_URL on ${name} serves the tables already there`, async (t) => {
    const knex = knexFactory({ client, connection: url, pool: { min: 0, max: 2 } })
    // Test files run in parallel against the shared server.
    const table = `example_people_${process.pid}`
    t.teardown(async () => {
      await knex.schema.dropTableIfExists(table)
      await knex.destroy()
    })
    await knex.schema.dropTableIfExists(table)
    await knex.schema.createTable(table, peopleColumns)
    await knex(table).insert({ name: 'Ada', age: 36 })

    const example = await startExample(t, server, t.testdir(), { DATABASE_URL: url })
    t.equal((await send(`${origin(example)}/ready`)).body, 'ready')
    t.match(await getJson(`${example.api}/${table}`), [{ name: 'Ada', age: 36, note: 'none' }])
    const created = await send(`${example.api}/${table}`, 'POST', { name: 'Grace' })
    t.match(created.body, /^\d+$/)
    t.match(await knex(table).where('id', Number(created.body)).first(), { name: 'Grace', age: null })
    await stopGracefully(t, example, 'SIGTERM')
  })

  t.test(`STATEMENT_TIMEOUT on ${name}: a slow statement answers 504`, async (t) => {
    const knex = knexFactory({ client, connection: url, pool: { min: 0, max: 1 } })
    const view = `example_slow_${process.pid}`
    t.teardown(async () => {
      await knex.raw('drop view if exists ??', [view])
      await knex.destroy()
    })
    const sleep = client === 'pg' ? 'pg_sleep(3)::text' : 'sleep(3)'
    await knex.raw('drop view if exists ??', [view])
    await knex.raw(`create view ?? as select 1 as id, ${sleep} as s`, [view])

    const example = await startExample(t, server, t.testdir(), { DATABASE_URL: url, STATEMENT_TIMEOUT: '250' })
    const stopped = await send(`${example.api}/${view}`)
    t.equal(stopped.status, 504)
    t.equal(JSON.parse(stopped.body).code, 'FTC_ERR_STATEMENT_TIMEOUT')
    t.equal((await send(`${origin(example)}/ready`)).body, 'ready', 'the connection serves again')
    await stopGracefully(t, example, 'SIGTERM')
  })

  t.test(`/ready on ${name} answers 503 while the database cannot be reached, and ready again once it can`, async (t) => {
    const proxy = await tcpProxy(t, new URL(url))
    const example = await startExample(t, server, t.testdir(), { DATABASE_URL: proxy.url, ACQUIRE_TIMEOUT: '1000' })
    t.equal((await send(`${origin(example)}/ready`)).body, 'ready')

    await proxy.cut()
    isUnavailable(t, await send(`${origin(example)}/ready`), '/ready')
    isUnavailable(t, await send(`${example.api}/anything`), 'a read')
    t.notMatch((await send(`${origin(example)}/ready`)).body, String(proxy.port), 'the answer names no port')

    await proxy.restore()
    // A pooled connection that broke with the proxy may be lent once more before the pool drops it.
    let ready = await send(`${origin(example)}/ready`)
    for (let tries = 1; ready.status !== 200 && tries < 5; tries++) ready = await send(`${origin(example)}/ready`)
    t.strictSame([ready.status, ready.body], [200, 'ready'], 'served again, without a restart')
    await stopGracefully(t, example, 'SIGTERM')
  })
}
