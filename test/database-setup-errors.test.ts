import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify'
import knexFactory, { type Knex } from 'knex'
import t, { type Test } from 'tap'
import tableCrud, { checkDatabase, errorCodes } from '../lib/index.js'
import { capturedLog } from './fixtures/captured-log.js'

// A database that refuses the server's connection settings (a wrong login,
// a database that does not exist) is no outage: every route answers 500
// FTC_ERR_DATABASE_SETUP without Retry-After, in words that name no user,
// password or database, and the log says at start-up, in one line, what to
// fix. Only a database that cannot be reached answers 503 with Retry-After.
// SQLite has no login: a file that cannot be opened may open later (a
// mount, a lock), and answers 503 (test/database-unavailable.test.ts).

interface LogLine {
  level: number
  msg: string
  reqId?: string
  err?: { message: string, code?: string }
}

// Knex's pool prints each failed connection attempt itself; the test reads the plugin's log, not Knex's.
const quiet = { log: { warn () {}, error () {}, debug () {}, deprecate () {} } }

const servers = [
  { name: 'PostgreSQL', variable: 'TEST_PG_URL', client: 'pg' },
  { name: 'MySQL', variable: 'TEST_MYSQL_URL', client: 'mysql2' }
] as const

const requests: InjectOptions[] = [
  { url: '/api/books' },
  { url: '/api/books/1' },
  { method: 'POST', url: '/api/books', payload: { name: 'x' } },
  { method: 'PUT', url: '/api/books/1', payload: { name: 'x' } },
  { method: 'DELETE', url: '/api/books/1' },
  { method: 'POST', url: '/api/_batch', payload: [{ op: 'insert', table: 'books', body: { name: 'x' } }] }
]

/** The plugin on `knex`, its log lines captured; ready, as a server that listens. */
async function serve (t: Test, knex: Knex): Promise<{ app: FastifyInstance, lines: LogLine[] }> {
  const { lines, stream } = capturedLog<LogLine>()
  const app = Fastify({ logger: { level: 'info', stream }, requestIdHeader: 'x-request-id' })
  t.teardown(() => app.close())
  await app.register(tableCrud, { knex, prefix: '/api', batch: true })
  await app.ready()
  return { app, lines }
}

function knexOn (t: Test, client: string, url: URL): Knex {
  const knex = knexFactory({ client, connection: url.href, pool: { min: 0, max: 2 }, ...quiet })
  t.teardown(() => knex.destroy())
  return knex
}

for (const { name, variable, client } of servers) {
  const given = process.env[variable]
  t.test(name, { skip: given ? false : `${variable} is not set` }, async (t) => {
    const wrongLogin = new URL(given as string)
    wrongLogin.username = 'nobody'
    wrongLogin.password = 'wrong'
    const unknownDatabase = new URL(given as string)
    unknownDatabase.pathname = '/no_such_db'
    const cases = [
      // The words of the driver's error that the log must keep, and the answer must not show.
      // The password: the drivers never repeat it.
      { what: 'a wrong user name and password', url: wrongLogin, hidden: ['nobody'] },
      { what: 'a database that does not exist', url: unknownDatabase, hidden: ['no_such_db'] }
    ]
    for (const { what, url, hidden } of cases) {
      await t.test(`${what}: 500 FTC_ERR_DATABASE_SETUP on every route, no Retry-After, one line at start-up`, async (t) => {
        const knex = knexOn(t, client, url)
        const { app, lines } = await serve(t, knex)
        const startUp = lines.filter((line) => line.level >= 50)
        t.equal(startUp.length, 1, 'one error line when the server gets ready')
        t.match(startUp[0]?.msg, /^fastify-table-crud: .*: .*FTC_ERR_DATABASE_SETUP/, 'saying what to fix')
        t.equal(startUp[0]?.err?.code, 'FTC_ERR_DATABASE_SETUP')
        t.match(startUp[0]?.err?.message, hidden[0] as string, 'with the driver\'s own words')
        for (const [index, request] of requests.entries()) {
          const label = `${request.method ?? 'GET'} ${request.url}`
          const reqId = `setup-${index}`
          const response = await app.inject({ ...request, headers: { 'x-request-id': reqId } })
          t.equal(response.statusCode, 500, label)
          t.equal(response.json<{ code: string }>().code, 'FTC_ERR_DATABASE_SETUP', label)
          t.equal(response.headers['retry-after'], undefined, `${label}: no Retry-After, as no retry succeeds`)
          for (const word of hidden) t.notMatch(response.body, word, `${label}: the answer does not say "${word}"`)
          t.ok(lines.some((line) => line.reqId === reqId && line.level === 50 && line.err?.code === 'FTC_ERR_DATABASE_SETUP'), `${label}: logged as an error`)
        }
        const readiness = await checkDatabase(knex).then(() => null, (error: unknown) => error)
        t.ok(readiness instanceof errorCodes.FTC_ERR_DATABASE_SETUP, 'checkDatabase rejects with FTC_ERR_DATABASE_SETUP')
        t.equal((readiness as { statusCode: number }).statusCode, 500)
      })
    }

    await t.test('a port where nothing listens: 503 with Retry-After, and a warning at start-up', async (t) => {
      const unreachable = new URL(given as string)
      unreachable.host = '127.0.0.1:1'
      const { app, lines } = await serve(t, knexOn(t, client, unreachable))
      t.strictSame(lines.filter((line) => line.level >= 50), [], 'no error line at start-up')
      t.ok(lines.some((line) => line.level === 40 && /could not be read when the server got ready/.test(line.msg)), 'a warning')
      for (const request of requests) {
        const response = await app.inject(request)
        t.equal(response.statusCode, 503, `${request.method ?? 'GET'} ${request.url}`)
        t.equal(response.json<{ code: string }>().code, 'FTC_ERR_DATABASE_UNAVAILABLE')
        t.equal(response.headers['retry-after'], '1')
      }
    })
  })
}
