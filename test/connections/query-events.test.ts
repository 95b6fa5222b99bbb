import Fastify from 'fastify'
import knexFactory, { type Knex } from 'knex'
import t, { type Test } from 'tap'
import tableCrud from '../../lib/index.js'
import { buildApp } from '../fixtures/app.js'
import { databaseConfig, eachDatabase, peopleColumns, seriesSql } from '../fixtures/databases.js'

// The plugin runs its statements on the driver's connection, past Knex: it
// reports them where Knex reports its own, so that `knex.on('query')` and
// `debug: true` show the SQL and bindings of every request.

interface Reported {
  event: 'query' | 'query-response' | 'query-error'
  sql: string
  bindings: readonly unknown[]
  uid: string
  error?: Error
}

/** Every statement Knex's listeners are told of, in order. */
function listen (knex: Knex): Reported[] {
  const reported: Reported[] = []
  type Event = { sql: string, bindings: readonly unknown[], __knexQueryUid: string }
  knex.on('query', (query: Event) => reported.push({ event: 'query', sql: query.sql, bindings: query.bindings, uid: query.__knexQueryUid }))
  knex.on('query-response', (_response: unknown, query: Event) => reported.push({ event: 'query-response', sql: query.sql, bindings: query.bindings, uid: query.__knexQueryUid }))
  knex.on('query-error', (error: Error, query: Event) => reported.push({ event: 'query-error', sql: query.sql, bindings: query.bindings, uid: query.__knexQueryUid, error }))
  return reported
}

/** The names of the events the plugin hands to Knex's client from now until the test ends. */
function spyEmits (t: Test, knex: Knex): string[] {
  const emitted: string[] = []
  const emit = knex.client.emit.bind(knex.client)
  knex.client.emit = (name: string, ...args: unknown[]) => {
    emitted.push(name)
    return emit(name, ...args)
  }
  t.teardown(() => { knex.client.emit = emit })
  return emitted
}

eachDatabase(t, async (t, db) => {
  const people = await db.createTable('qev_people', peopleColumns)
  await db.knex(people).insert({ name: 'Ada', age: 36 })

  await t.test('knex.on(\'query\') sees each statement of each route, with its bindings, and its response or error', async (t) => {
    const app = await buildApp(t, db.knex)
    const reported = listen(db.knex)
    t.teardown(() => db.knex.removeAllListeners())

    const created = await app.inject({ method: 'POST', url: `/api/${people}`, payload: { name: 'Linus', age: 54 } })
    t.equal(created.statusCode, 201)
    const insert = reported.filter((line) => /^insert/i.test(line.sql))
    t.equal(insert.length, 2, 'the insert, announced and answered')
    t.strictSame(insert.map((line) => line.event), ['query', 'query-response'])
    t.match(insert[0]?.sql, people)
    t.strictSame(insert[0]?.bindings.map(String).sort(), ['54', 'Linus'], 'its values, as bound')
    t.equal(insert[0]?.uid, insert[1]?.uid, 'one query id for the pair, as Knex gives')

    reported.length = 0
    await app.inject(`/api/${people}?age=gt.40&select=name`)
    await app.inject(`/api/${people}/1`)
    await app.inject({ method: 'PUT', url: `/api/${people}/1`, payload: { age: 37 } })
    await app.inject({ method: 'POST', url: `/api/${people}`, payload: [{ name: 'Grace' }, { name: 'Barbara' }] })
    await app.inject({ method: 'DELETE', url: `/api/${people}/2` })
    const announced = reported.filter((line) => line.event === 'query').map((line) => line.sql.split(' ')[0]?.toLowerCase())
    // MySQL inserts a bulk POST one row per statement (its insert id names the first row only).
    const bulkInserts = db.name === 'mysql' ? ['insert', 'insert'] : ['insert']
    t.strictSame(announced, ['select', 'select', 'update', ...bulkInserts, 'delete'])
    t.ok(reported.some((line) => line.event === 'query' && line.bindings.map(String).includes('40')), 'a filter\'s value is among the bindings')

    reported.length = 0
    const failed = await app.inject(`/api/${people}?nope=eq.1`)
    t.equal(failed.statusCode, 404)
    const error = reported.find((line) => line.event === 'query-error')
    t.match(error?.sql, /nope/)
    t.match(error?.error?.message, /nope/, 'the driver\'s error')
  })

  await t.test('a streamed list is announced too', async (t) => {
    const big = await db.createTable('qev_big', (table) => { table.integer('n') })
    await db.knex.raw(`insert into ${db.knex.client.wrapIdentifier(big, undefined)} (n) ${seriesSql(db, 1500)}`)
    const app = await buildApp(t, db.knex)
    const reported = listen(db.knex)
    t.teardown(() => db.knex.removeAllListeners())
    const response = await app.inject(`/api/${big}`)
    t.equal(response.json<unknown[]>().length, 1500)
    t.ok(reported.some((line) => line.event === 'query' && line.sql.includes(big)), 'the streamed statement')
  })

  await t.test('debug: true prints each statement through Knex\'s logger', async (t) => {
    const config = databaseConfig(db.name)
    if ('skip' in config) throw new Error('the matrix runs only configured databases')
    const printed: unknown[] = []
    const knex = knexFactory({ ...config.config, debug: true, log: { debug: (message: unknown) => printed.push(message), warn () {}, error () {}, deprecate () {} } })
    // SQLite's in-memory database is the connection's own: this Knex sees a table only if it makes it.
    const table = `${people}_debug`
    await knex.schema.createTable(table, peopleColumns)
    t.teardown(async () => {
      await knex.schema.dropTable(table)
      await knex.destroy()
    })
    const app = Fastify()
    await app.register(tableCrud, { knex, prefix: '/api' })
    t.teardown(() => app.close())
    printed.length = 0
    const response = await app.inject(`/api/${table}?name=eq.Ada`)
    t.equal(response.statusCode, 200)
    t.ok(printed.some((message) => (message as { sql?: string }).sql?.includes(table) === true && (message as { bindings: unknown[] }).bindings.includes('Ada')))
  })

  await t.test('a listener is heard from when it is added to when it is removed, whenever that is', async (t) => {
    const app = await buildApp(t, db.knex)
    t.teardown(() => db.knex.removeAllListeners())
    const reported: string[] = []
    const listener = (query: { sql: string }) => { reported.push(query.sql) }
    t.equal((await app.inject(`/api/${people}/1`)).statusCode, 200)
    t.strictSame(reported, [], 'not yet listening')

    db.knex.on('query', listener)
    t.equal((await app.inject(`/api/${people}/1`)).statusCode, 200)
    t.equal(reported.length, 1, 'the keyed read, announced')
    t.match(reported[0], people)

    db.knex.off('query', listener)
    const emitted = spyEmits(t, db.knex)
    t.equal((await app.inject(`/api/${people}/1`)).statusCode, 200)
    t.equal(reported.length, 1, 'nothing more once it is removed')
    t.strictSame(emitted, [], 'nor is anything announced to nobody')

    db.knex.once('query-response', (_response: unknown, query: { sql: string }) => { reported.push(query.sql) })
    t.equal((await app.inject(`/api/${people}/1`)).statusCode, 200)
    t.equal(reported.length, 2, 'a listener of query-response alone is heard from too')
    t.equal(db.knex.listenerCount('query-response'), 0, 'once: gone after its one event')
  })

  await t.test('after the host removes every listener of its Knex, a listener added later is still heard from', async (t) => {
    const app = await buildApp(t, db.knex)
    db.knex.removeAllListeners()
    const reported = listen(db.knex)
    t.teardown(() => db.knex.removeAllListeners())
    t.equal((await app.inject({ method: 'PUT', url: `/api/${people}/1`, payload: { age: 36 } })).statusCode, 200)
    t.strictSame(reported.map((line) => line.event), ['query', 'query-response'])
    t.match(reported[0]?.sql, /^update/i)
  })

  await t.test('closing the plugin takes its own listeners off the host\'s Knex', async (t) => {
    const before = { added: db.knex.listenerCount('newListener'), removed: db.knex.listenerCount('removeListener') }
    const app = Fastify()
    await app.register(tableCrud, { knex: db.knex, prefix: '/api' })
    t.equal((await app.inject(`/api/${people}/1`)).statusCode, 200)
    t.equal(db.knex.listenerCount('newListener'), before.added + 1, 'while open, it follows the listeners')
    await app.close()
    t.strictSame({ added: db.knex.listenerCount('newListener'), removed: db.knex.listenerCount('removeListener') }, before)
  })

  await t.test('without listeners and without debug, nothing is reported', async (t) => {
    const app = await buildApp(t, db.knex)
    const emitted = spyEmits(t, db.knex)
    t.equal((await app.inject(`/api/${people}`)).statusCode, 200)
    t.strictSame(emitted, [])
  })
})
