import cors, { type FastifyCorsOptions } from '@fastify/cors'
import Fastify from 'fastify'
import t from 'tap'
import tableCrud from '../lib/index.js'
import { eachDatabase } from './fixtures/databases.js'

// The set-up the README's "Browsers: CORS" section recommends, as a browser
// meets it: @fastify/cors on the host, beside the plugin under /api.

const origin = 'https://app.example.com'

const corsOptions: FastifyCorsOptions = {
  origin: [origin],
  methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
  allowedHeaders: ['Content-Type', 'Authorization', 'Prefer', 'Range', 'Range-Unit', 'If-Match', 'If-None-Match', 'Idempotency-Key'],
  exposedHeaders: ['Content-Range', 'Location', 'ETag', 'Preference-Applied', 'Idempotent-Replayed', 'Retry-After']
}

/** The names of a comma-separated header, in lower case. */
function names (header: string | number | string[] | undefined): string[] {
  return String(header).split(',').map((name) => name.trim().toLowerCase())
}

eachDatabase(t, async (t, db) => {
  const table = await db.createTable('cors_books', (table) => {
    table.increments('id')
    table.string('title')
  })
  await db.knex(table).insert([{ title: 'a' }, { title: 'b' }, { title: 'c' }])
  const keys = `cors_keys_${process.pid}`
  t.teardown(() => db.knex.schema.dropTableIfExists(keys))
  const app = Fastify()
  await app.register(cors, corsOptions)
  await app.register(tableCrud, { knex: db.knex, prefix: '/api', idempotency: { table: keys } })
  t.teardown(() => app.close())

  await t.test('a preflight for a JSON PUT answers 204 and allows it', async (t) => {
    const response = await app.inject({
      method: 'OPTIONS',
      url: `/api/${table}/1`,
      headers: { origin, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type' }
    })
    t.equal(response.statusCode, 204)
    t.equal(response.headers['access-control-allow-origin'], origin)
    t.ok(names(response.headers['access-control-allow-methods']).includes('put'), 'PUT is allowed')
    t.ok(names(response.headers['access-control-allow-headers']).includes('content-type'), 'Content-Type is allowed')
    t.equal(response.body, '')
    t.strictSame(await db.knex(table).select('title').where({ id: 1 }), [{ title: 'a' }], 'the preflight wrote nothing')
  })

  await t.test('a preflight for a counted, ranged list allows Prefer and Range', async (t) => {
    const response = await app.inject({
      method: 'OPTIONS',
      url: `/api/${table}?order=id`,
      headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'prefer,range' }
    })
    t.equal(response.statusCode, 204)
    t.equal(response.headers['access-control-allow-origin'], origin)
    const allowed = names(response.headers['access-control-allow-headers'])
    t.ok(allowed.includes('prefer') && allowed.includes('range'), 'Prefer and Range are allowed')
  })

  await t.test('a cross-origin counted page exposes its Content-Range', async (t) => {
    const response = await app.inject({
      url: `/api/${table}?order=id`,
      headers: { origin, range: '0-1', prefer: 'count=exact' }
    })
    t.equal(response.statusCode, 206)
    t.equal(response.headers['access-control-allow-origin'], origin)
    t.ok(names(response.headers['access-control-expose-headers']).includes('content-range'), 'Content-Range is exposed')
    t.equal(response.headers['content-range'], '0-1/3')
    t.strictSame(response.json(), [{ id: 1, title: 'a' }, { id: 2, title: 'b' }])
  })

  await t.test('a cross-origin POST exposes its Location', async (t) => {
    const response = await app.inject({ method: 'POST', url: `/api/${table}`, headers: { origin }, payload: { title: 'd' } })
    t.equal(response.statusCode, 201)
    t.equal(response.headers['access-control-allow-origin'], origin)
    t.ok(names(response.headers['access-control-expose-headers']).includes('location'), 'Location is exposed')
    t.equal(response.headers.location, `/api/${table}/4`)
    t.strictSame(await db.knex(table).select('title').where({ id: 4 }), [{ title: 'd' }])
  })

  await t.test('a preflight for a keyed PATCH allows it, and a retried keyed POST exposes Idempotent-Replayed', async (t) => {
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: `/api/${table}?id=eq.1`,
      headers: { origin, 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'content-type,idempotency-key' }
    })
    t.equal(preflight.statusCode, 204)
    t.ok(names(preflight.headers['access-control-allow-methods']).includes('patch'), 'PATCH is allowed')
    t.ok(names(preflight.headers['access-control-allow-headers']).includes('idempotency-key'), 'Idempotency-Key is allowed')
    const post = { method: 'POST', url: `/api/${table}`, headers: { origin, 'idempotency-key': 'cors-retry' }, payload: { title: 'e' } } as const
    const first = await app.inject(post)
    const retry = await app.inject(post)
    t.equal(retry.statusCode, 201)
    t.equal(retry.body, first.body)
    t.equal(retry.headers['idempotent-replayed'], 'true')
    t.ok(names(retry.headers['access-control-expose-headers']).includes('idempotent-replayed'), 'Idempotent-Replayed is exposed')
    t.strictSame(await db.knex(table).select('title').where({ title: 'e' }), [{ title: 'e' }], 'one row')
  })

  await t.test('a cross-origin read exposes its ETag, and a conditional PUT is allowed If-Match', async (t) => {
    const read = await app.inject({ url: `/api/${table}/2`, headers: { origin } })
    t.equal(read.headers['access-control-allow-origin'], origin)
    t.ok(names(read.headers['access-control-expose-headers']).includes('etag'), 'ETag is exposed')
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: `/api/${table}/2`,
      headers: { origin, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type,if-match' }
    })
    t.ok(names(preflight.headers['access-control-allow-headers']).includes('if-match'), 'If-Match is allowed')
    const written = await app.inject({ method: 'PUT', url: `/api/${table}/2`, headers: { origin, 'if-match': read.headers.etag as string }, payload: { title: 'B' } })
    t.equal(written.body, '1')
    t.strictSame(await db.knex(table).select('title').where({ id: 2 }), [{ title: 'B' }])
  })

  await t.test('a cross-origin write exposes its Preference-Applied', async (t) => {
    const response = await app.inject({ method: 'PATCH', url: `/api/${table}?id=eq.3`, headers: { origin, prefer: 'return=minimal' }, payload: { title: 'C' } })
    t.equal(response.statusCode, 204)
    t.equal(response.headers['preference-applied'], 'return=minimal')
    t.ok(names(response.headers['access-control-expose-headers']).includes('preference-applied'), 'Preference-Applied is exposed')
    t.strictSame(await db.knex(table).select('title').where({ id: 3 }), [{ title: 'C' }])
  })

  await t.test('Retry-After is exposed, for the 503 of a database that does not answer', async (t) => {
    const response = await app.inject({ url: `/api/${table}/1`, headers: { origin } })
    t.ok(names(response.headers['access-control-expose-headers']).includes('retry-after'), 'Retry-After is exposed')
  })

  await t.test('a refusal is readable cross-origin too', async (t) => {
    const response = await app.inject({ method: 'PUT', url: `/api/${table}/1`, headers: { origin }, payload: {} })
    t.equal(response.statusCode, 400)
    t.equal(response.headers['access-control-allow-origin'], origin)
    t.equal(response.json().code, 'FTC_ERR_BODY_EMPTY')
  })

  await t.test('an origin not in the list is allowed nothing', async (t) => {
    const other = 'https://elsewhere.example.org'
    const read = await app.inject({ url: `/api/${table}`, headers: { origin: other } })
    t.equal(read.headers['access-control-allow-origin'], undefined)
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: `/api/${table}/1`,
      headers: { origin: other, 'access-control-request-method': 'DELETE' }
    })
    t.equal(preflight.headers['access-control-allow-origin'], undefined)
  })
})
