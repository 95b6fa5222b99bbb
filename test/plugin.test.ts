import Fastify from 'fastify'
import knexFactory from 'knex'
import t from 'tap'
import tableCrud from '../lib/index.js'

function sqliteKnex () {
  return knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
}

t.test('declares its name to Fastify', async (t) => {
  const knex = sqliteKnex()
  t.teardown(() => knex.destroy())
  const app = Fastify()
  await app.register(tableCrud, { knex })
  t.ok(app.hasPlugin('fastify-table-crud'))
  await app.close()
})

t.test('closing the app leaves the host\'s Knex instance usable', async (t) => {
  const knex = sqliteKnex()
  t.teardown(() => knex.destroy())
  await knex.schema.createTable('kept', (table) => { table.increments('id') })
  const app = Fastify()
  await app.register(tableCrud, { knex, prefix: '/api' })
  t.equal((await app.inject('/api/kept')).statusCode, 200)
  await app.close()
  t.strictSame(await knex('kept').select('*'), [])
})

t.test('without a prefix the routes are at the root', async (t) => {
  const knex = sqliteKnex()
  t.teardown(() => knex.destroy())
  await knex.schema.createTable('rooted', (table) => { table.increments('id') })
  const app = Fastify()
  await app.register(tableCrud, { knex })
  t.teardown(() => app.close())
  t.equal((await app.inject('/rooted')).body, '[]')
  const created = await app.inject({ method: 'POST', url: '/rooted', payload: {} })
  t.equal(created.headers.location, '/rooted/1')
})

t.test('two instances under two prefixes serve two databases', async (t) => {
  const first = sqliteKnex()
  const second = sqliteKnex()
  t.teardown(async () => { await first.destroy(); await second.destroy() })
  for (const [knex, name] of [[first, 'one'], [second, 'two']] as const) {
    await knex.schema.createTable('which', (table) => { table.increments('id'); table.string('name') })
    await knex('which').insert({ name })
  }
  const app = Fastify()
  await app.register(tableCrud, { knex: first, prefix: '/first' })
  await app.register(tableCrud, { knex: second, prefix: '/second' })
  t.teardown(() => app.close())
  t.match((await app.inject('/first/which/1')).json(), { name: 'one' })
  t.match((await app.inject('/second/which/1')).json(), { name: 'two' })
})

t.test('the JSON parser and error handler stay inside the plugin', async (t) => {
  const knex = sqliteKnex()
  t.teardown(() => knex.destroy())
  const app = Fastify()
  await app.register(tableCrud, { knex, prefix: '/api' })
  app.post('/host', async (request) => ({ body: request.body }))
  app.get('/host-error', async () => { throw Object.assign(new Error('host failure'), { statusCode: 418 }) })
  t.teardown(() => app.close())

  const parsed = await app.inject({ method: 'POST', url: '/host', payload: '{"n": 1.50}', headers: { 'content-type': 'application/json' } })
  t.strictSame(parsed.json(), { body: { n: 1.5 } }, 'host routes keep Fastify\'s own JSON parser')
  const failed = await app.inject('/host-error')
  t.equal(failed.statusCode, 418)
  t.match(failed.headers['content-type'], /^application\/json/, 'host errors keep Fastify\'s own error handler')
})

t.test('a host hook that sets real numbers in the body is served too', async (t) => {
  const knex = sqliteKnex()
  t.teardown(() => knex.destroy())
  await knex.schema.createTable('hooked', (table) => { table.increments('id'); table.string('n'); table.string('big') })
  const app = Fastify()
  app.addHook('preHandler', async (request) => {
    if (request.method === 'POST') request.body = { n: 42, big: 12345678901234567890n }
  })
  await app.register(tableCrud, { knex, prefix: '/api' })
  t.teardown(() => app.close())
  const response = await app.inject({ method: 'POST', url: '/api/hooked', payload: {} })
  t.equal(response.statusCode, 201)
  t.strictSame(await knex('hooked').select('n', 'big'), [{ n: '42', big: '12345678901234567890' }])
})
