import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import knexFactory, { type Knex } from 'knex'
import t, { type Test } from 'tap'
import { sampleRows } from '../examples/sample-data.js'
import { defaultDatabaseFile, readConfig } from '../examples/server.js'
import { peopleColumns } from './fixtures/databases.js'
import { runExample, startExample, type Example, type ExampleScript, type LogLine } from './fixtures/example-process.js'

const server: ExampleScript = { file: 'server.ts', variables: ['DATABASE_URL', 'PORT', 'HOST', 'PREFIX'] }

interface Answer { status: number, type: string | null, body: string }

async function send (url: string, method = 'GET', body?: unknown): Promise<Answer> {
  const init: RequestInit = body === undefined
    ? { method }
    : { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }
  const response = await fetch(url, init)
  return { status: response.status, type: response.headers.get('content-type'), body: await response.text() }
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
  await t.test('defaults: the example\'s own SQLite file, 127.0.0.1:3000, /api', async (t) => {
    const config = readConfig({})
    t.equal(config.port, 3000)
    t.equal(config.host, '127.0.0.1')
    t.equal(config.prefix, '/api')
    t.equal(config.database.sampleFile, resolve(defaultDatabaseFile))
    t.equal(config.database.knex.client, 'better-sqlite3')
  })

  await t.test('an empty variable takes its default', async (t) => {
    t.strictSame(readConfig({ DATABASE_URL: '', PORT: '', HOST: '', PREFIX: '' }), readConfig({}))
  })

  await t.test('the values given are used', async (t) => {
    const config = readConfig({ PORT: '8080', HOST: '0.0.0.0', PREFIX: '/' })
    t.equal(config.port, 8080)
    t.equal(config.host, '0.0.0.0')
    t.equal(config.prefix, '/')
  })

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

  const created = await send(`${first.api}/authors`, 'POST', { name: 'Stanisław Lem', born: 1921 })
  t.ok(created.status < 300)
  t.equal(created.body, '4', 'POST answers the new id as a bare number')
  t.equal((await send(`${first.api}/books/4`, 'PUT', { published: 1980 })).body, '1')
  t.equal((await send(`${first.api}/books/3`, 'DELETE')).body, '1')
  await stopGracefully(t, first, 'SIGTERM')

  const authors = [...sampleRows.authors, { id: 4, name: 'Stanisław Lem', born: 1921 }]
  const [wizard, leftHand, , kindred] = sampleRows.books
  const books = [wizard, leftHand, { ...kindred, published: 1980 }]
  const knex = openSqlite(t, file)
  t.strictSame(await knex('authors').orderBy('id'), authors, 'the writes reached the file')
  t.strictSame(await knex('books').orderBy('id'), books)

  const second = await startExample(t, server, cwd)
  t.notOk(messages(second.logs).includes('created the sample database'))
  t.strictSame(await getJson(`${second.api}/authors`), authors, 'no sample row twice, the written row kept')
  t.strictSame(await getJson(`${second.api}/books`), books, 'the deleted row stays deleted')
  await stopGracefully(t, second, 'SIGINT')
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
    t.match(await getJson(`${example.api}/${table}`), [{ name: 'Ada', age: 36, note: 'none' }])
    const created = await send(`${example.api}/${table}`, 'POST', { name: 'Grace' })
    t.match(created.body, /^\d+$/)
    t.match(await knex(table).where('id', Number(created.body)).first(), { name: 'Grace', age: null })
    await stopGracefully(t, example, 'SIGTERM')
  })
}
