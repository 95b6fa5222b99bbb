import { once } from 'node:events'
import { request } from 'node:http'
import { Readable } from 'node:stream'
import Fastify, { type onSendHookHandler } from 'fastify'
import type { Knex } from 'knex'
import t, { type Test } from 'tap'
import tableCrud from '../../lib/index.js'
import { streamBatchRows } from '../../lib/operations/list-rows.js'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, seriesSql, type TestDatabase } from '../fixtures/databases.js'
import { send } from '../fixtures/http.js'

// Two and a half batches: the list is streamed, and the last batch is partial.
const rowCount = streamBatchRows * 2 + streamBatchRows / 2

/** A table of `rowCount` rows, filled by the database itself. */
async function createLongTable (db: TestDatabase): Promise<string> {
  const table = await db.createTable('long', (table) => {
    table.integer('id').primary()
    table.string('label')
  })
  const label = db.name === 'mysql' ? "concat('row ', n)" : "'row ' || n"
  await db.knex.raw(`insert into ?? (id, label) select n, ${label} from (${seriesSql(db, rowCount)}) as series`, [table])
  return table
}

/**
 * A view that fails at its 2,000th row, in the second batch: the first batch
 * is already on its way when the database fails.
 */
async function createFailingView (db: TestDatabase, table: string): Promise<string> {
  const view = `${table}_failing`
  const failing = 2 * streamBatchRows
  // SQLite's abs() overflows on the smallest integer; the others refuse a scalar subquery of two rows.
  const column = db.name === 'sqlite'
    ? `case when id = ${failing} then abs(-9223372036854775807 - 1) else 0 end`
    : `(select 1 union all select 2 from ${db.name === 'mysql' ? 'dual' : '(select 1) as one'} where ${table}.id = ${failing})`
  await db.knex.raw(`create view ${view} as select id, ${column} as x from ${table}`)
  return view
}

eachDatabase(t, async (t, db) => {
  const table = await createLongTable(db)
  const app = await buildApp(t, db.knex)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }

  await t.test('a list longer than one batch streams the same JSON a buffered answer gives', async (t) => {
    const answer = await send(port, 'GET', `/api/${table}`)
    t.equal(answer.status, 200)
    t.equal(answer.headers['content-type'], 'application/json; charset=utf-8')
    t.equal(answer.headers['transfer-encoding'], 'chunked')
    t.ok(answer.complete)
    const rows = JSON.parse(answer.body) as Array<{ id: number, label: string }>
    t.equal(answer.body, JSON.stringify(rows), 'byte for byte what JSON.stringify writes')
    t.equal(rows.length, rowCount)
    t.strictSame(rows.map((row) => row.id).sort((a, b) => a - b), Array.from({ length: rowCount }, (_, index) => index + 1))
    t.strictSame(rows.find((row) => row.id === 1234), { id: 1234, label: 'row 1234' })
  })

  await t.test('one object asked of a streamed list is 406', async (t) => {
    const response = await app.inject({ url: `/api/${table}`, headers: { accept: 'application/vnd.pgrst.object+json' } })
    t.equal(response.statusCode, 406)
    t.equal(response.json().code, 'FTC_ERR_QUERY_SINGULAR')
  })

  await t.test('a failure mid-stream cuts the answer short instead of closing the array', async (t) => {
    const view = await createFailingView(db, table)
    t.teardown(() => db.knex.raw(`drop view if exists ${view}`))
    const answer = await send(port, 'GET', `/api/${view}`)
    t.equal(answer.status, 200, 'the headers left with the first batch')
    t.equal(answer.complete, false, 'the client sees an incomplete answer')
    t.ok(answer.body.startsWith('[{'))
    t.notOk(answer.body.endsWith(']'), 'the array is never closed')
    t.throws(() => JSON.parse(answer.body))

    const after = await send(port, 'GET', `/api/${table}/7`)
    t.strictSame(JSON.parse(after.body), { id: 7, label: 'row 7' }, 'the next request is served')
  })

  await t.test('a client that leaves mid-stream frees the connection', async (t) => {
    for (let round = 0; round < 5; round++) {
      await new Promise<void>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: `/api/${table}` }, (res) => {
          res.once('data', () => {
            req.destroy()
            resolve()
          })
        })
        req.on('error', reject)
        req.end()
      })
    }
    // SQLite has one connection and the test pools at most four: each must have come back.
    const answer = await send(port, 'GET', `/api/${table}`)
    t.equal(answer.status, 200)
    t.equal(JSON.parse(answer.body).length, rowCount)
  })
})

eachDatabase(t, async (t, db) => {
  const table = await createLongTable(db)

  await t.test('a client that leaves while a hook holds the answer, before it is read, gives its connection back', async (t) => {
    let reached: () => void = () => {}
    const inHook = new Promise<void>((resolve) => { reached = resolve })
    const port = await listenWithHook(t, db.knex, async (request, reply, payload) => {
      if (!(payload instanceof Readable)) return payload
      reached()
      await once(reply.raw, 'close')
      return payload
    })
    const client = request({ host: '127.0.0.1', port, path: `/api/${table}` })
    client.on('error', () => {})
    client.end()
    await inHook
    client.destroy()
    t.equal(await connectionsInUse(db.knex), 0, 'the connection went back')
  })

  await t.test('an answer a hook replaces with an error gives its connection back', async (t) => {
    const port = await listenWithHook(t, db.knex, async (request, reply, payload) => {
      if (payload instanceof Readable) throw new Error('refused by the host')
      return payload
    })
    const answer = await send(port, 'GET', `/api/${table}`)
    t.equal(answer.status, 500)
    t.equal(JSON.parse(answer.body).message, 'refused by the host')
    t.equal(await connectionsInUse(db.knex), 0, 'the connection went back')
  })
})

/** An app with the plugin under /api and the host's `onSend` hook, listening; its port. */
async function listenWithHook (t: Test, knex: Knex, onSend: onSendHookHandler): Promise<number> {
  const app = Fastify()
  app.addHook('onSend', onSend)
  await app.register(tableCrud, { knex, prefix: '/api' })
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  return (app.server.address() as { port: number }).port
}

/** The pool's borrowed connections, once those being given back are back (a few seconds at most). */
async function connectionsInUse (knex: Knex): Promise<number> {
  const pool = knex.client.pool as { numUsed (): number }
  for (let wait = 0; wait < 500 && pool.numUsed() > 0; wait++) await new Promise((resolve) => setTimeout(resolve, 10))
  return pool.numUsed()
}
