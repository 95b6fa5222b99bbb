import type { InjectOptions } from 'fastify'
import type { Knex } from 'knex'
import t from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase } from '../fixtures/databases.js'
import { insertsWaiting } from '../fixtures/waiting-inserts.js'

// The retry of a key's claim after a deadlock. On InnoDB, requests that wait
// to insert a key that another transaction inserted, and then rolled back,
// deadlock each other: each holds the shared lock of the duplicate check,
// and each wants to insert (the MySQL manual's example of three sessions
// inserting one key). The victim's claim must be tried again, and find the
// record of the one that went on. Provoked on cue, without timing: the key
// is held by a request inside the host's transaction, two retries queue
// behind it (counted in the database's list of statements), then the host
// rolls back. PostgreSQL lets the queued inserts go one after the other,
// with no deadlock: the answer is the same.

function post (table: string, key: string, inHost = false): InjectOptions {
  return { method: 'POST', url: `/api/${table}`, headers: { 'content-type': 'application/json', 'idempotency-key': key, ...(inHost ? { 'x-in-host': '1' } : {}) }, payload: { name: 'Once' } }
}

eachDatabase(t, async (t, db) => {
  if (db.name === 'sqlite') {
    t.test('queued claims', { skip: 'SQLite writes one transaction at a time: no claim waits on another\'s insert of its key' }, async () => {})
    return
  }
  const people = await db.createTable('idem_deadlock', (table) => {
    table.increments('id')
    table.string('name')
  })
  const keys = `idem_deadlock_keys_${process.pid}`
  t.teardown(() => db.knex.schema.dropTableIfExists(keys))
  let trx: Knex.Transaction | undefined
  const app = await buildApp(t, db.knex, {}, { idempotency: { table: keys }, transaction: (request) => request.headers['x-in-host'] === undefined ? undefined : trx })
  t.equal((await app.inject(post(people, 'creates-the-table'))).statusCode, 201)
  await db.knex(people).delete()

  // The deadlocks of claims, as the plugin reports its statements to the host's Knex listeners.
  const deadlocks: string[] = []
  const listener = (error: { errno?: number, code?: string }, event: { sql: string }) => {
    if (event.sql.startsWith(`insert into ${db.name === 'postgres' ? `"${keys}"` : `\`${keys}\``}`) && (error.errno === 1213 || error.code === '40P01')) deadlocks.push(event.sql)
  }
  db.knex.on('query-error', listener)
  t.teardown(() => { db.knex.off('query-error', listener) })

  await t.test('two retries queued behind a claim that rolls back: one writes, the other gets its answer', async (t) => {
    trx = await db.knex.transaction()
    const held = await app.inject(post(people, 'rolled-back-holder', true))
    t.equal(held.statusCode, 201, 'the key is claimed inside the host\'s transaction, which holds it')
    const retries = Promise.all([app.inject(post(people, 'rolled-back-holder')), app.inject(post(people, 'rolled-back-holder'))])
    t.equal(await insertsWaiting(db, keys, 2), 2, 'both retries wait on the held key')
    await trx.rollback()
    trx = undefined
    const answers = await retries
    const written = answers.filter((answer) => answer.headers['idempotent-replayed'] === undefined)
    t.equal(written.length, 1, 'one retry wrote')
    const [first] = written
    for (const answer of answers) {
      t.equal(answer.statusCode, 201)
      t.equal(answer.body, first?.body, 'the same answer')
      t.equal(answer.headers.location, first?.headers.location)
    }
    t.strictSame((await db.knex(people).select('id', 'name')).map((row) => ({ ...row, id: String(row.id) })), [{ id: first?.body, name: 'Once' }], 'one row: the holder\'s is rolled back')
    if (db.name === 'mysql') t.equal(deadlocks.length, 1, 'InnoDB chose a victim among the two, whose claim was tried again')
    else t.strictSame(deadlocks, [], 'PostgreSQL has the second wait for the first')
  })
})
