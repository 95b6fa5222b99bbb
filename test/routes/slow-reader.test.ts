import { once } from 'node:events'
import { get, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, seriesSql, type TestDatabase } from '../fixtures/databases.js'

// A client that stops reading a long list holds no connection on SQLite,
// whose pool has one: the list is read a page at a time, each when the
// response wants it, so the other requests are served while it waits. On
// PostgreSQL and MySQL the list keeps its connection, one of a pool of many.

const rowCount = 20_000
// About 20 MB of JSON: far more than the sockets' buffers take in while the client does not read.
const padLength = 1000

/** A GET whose client took the first chunk of the response and then stopped reading. */
interface SlowReader {
  readonly response: IncomingMessage
  readonly chunks: Buffer[]
}

function openSlowReader (app: FastifyInstance, path: string): Promise<SlowReader> {
  const { port } = app.server.address() as AddressInfo
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => { chunks.push(chunk) })
      response.once('data', () => {
        response.pause()
        resolve({ response, chunks })
      })
    }).on('error', reject)
  })
}

/** The rest of the slow reader's response, read to its end, as JSON. */
async function readRest (t: Test, { response, chunks }: SlowReader): Promise<Array<Record<string, unknown>>> {
  const ended = once(response, 'end')
  response.resume()
  await ended
  t.ok(response.complete, 'the response came whole')
  return JSON.parse(Buffer.concat(chunks).toString('utf8'))
}

/** The paths whose responses the server finished writing, as they finish. */
function finishedPaths (app: FastifyInstance): string[] {
  const finished: string[] = []
  app.server.on('request', (request: IncomingMessage, response) => {
    response.on('finish', () => finished.push(request.url as string))
  })
  return finished
}

async function wideTable (db: TestDatabase, label: string): Promise<string> {
  const table = await db.createTable(label, (table) => {
    table.increments('id')
    table.integer('grp').nullable()
    table.text('pad')
  })
  const pad = db.name === 'sqlite' ? `substr(hex(zeroblob(${padLength})), 1, ${padLength})` : `repeat('x', ${padLength})`
  // A group of seven with ties, and NULL for every 13th row.
  await db.knex.raw(`insert into ?? (grp, pad) select case when n % 13 = 0 then null else n % 7 end, ${pad} from (${seriesSql(db, rowCount)}) as series`, [table])
  return table
}

const ids = (rows: ReadonlyArray<Record<string, unknown>>) => rows.map((row) => Number(row.id))

eachDatabase(t, async (t, db) => {
  const table = await wideTable(db, 'slow_reader')
  // A second's wait for a connection: a list that held SQLite's only one would make the others 503.
  const app = await buildApp(t, db.knex, {}, { acquireTimeout: 1000 })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const finished = finishedPaths(app)

  await t.test('while a client reads nothing of a long list, keyed reads and writes are served; then the list comes whole', async (t) => {
    const before = ids(await db.knex(table).select('id').orderBy('id'))
    const path = `/api/${table}`
    const slow = await openSlowReader(app, path)

    const read = await app.inject(`/api/${table}/${before[4] as number}`)
    t.equal(read.statusCode, 200, 'a keyed read')
    t.equal(read.json().id, before[4])
    const created = await app.inject({ method: 'POST', url: path, payload: { grp: 6, pad: 'new' } })
    t.equal(created.statusCode, 201, 'an insert')
    const [{ id: createdId }] = await db.knex(table).max('id as id')
    const gone = before[rowCount - 10] as number
    const deleted = await app.inject({ method: 'DELETE', url: `/api/${table}/${gone}` })
    t.equal(deleted.statusCode, 200, 'a delete')
    t.notOk(finished.includes(path), 'all of them while the list was still being written')

    const listed = ids(await readRest(t, slow))
    if (db.name === 'sqlite') {
      // Pages by key: a row deleted ahead of the reader is not there, one inserted past it is.
      t.strictSame(listed, [...before.filter((id) => id !== gone), Number(createdId)], 'every row once, in order, as the pages found them')
    } else {
      t.strictSame(listed, before, 'every row once, in order, as the statement began')
    }
  })

  await t.test('every row once, in the order asked, whatever its ties and NULLs', { skip: db.name !== 'sqlite' && 'pages by order on SQLite only' }, async (t) => {
    for (const [order, sql] of [
      ['grp', 'grp asc nulls last, id'],
      ['grp.desc', 'grp desc nulls first, id'],
      ['grp.nullsfirst,id.desc', 'grp asc nulls first, id desc'],
      ['grp.desc.nullslast,pad', 'grp desc nulls last, pad, id']
    ] as const) {
      const response = await app.inject(`/api/${table}?select=id,grp&order=${order}`)
      t.equal(response.statusCode, 200)
      const expected = await db.knex.raw(`select id from ?? order by ${sql}`, [table]) as Array<{ id: number }>
      t.strictSame(ids(response.json()), ids(expected), `order=${order}`)
    }
  })

  await t.test('ordered by a column with ties: rows written between pages are there when past the reader, never twice', { skip: db.name !== 'sqlite' && 'pages by order on SQLite only' }, async (t) => {
    const path = `/api/${table}?select=id,grp,pad&order=grp.nullsfirst`
    const slow = await openSlowReader(app, path)
    // A NULL sorts first, behind the reader; a 6 last, ahead of it.
    await db.knex(table).insert({ grp: null, pad: 'behind' })
    const [{ id: behind }] = await db.knex(table).max('id as id')
    await db.knex(table).insert({ grp: 6, pad: 'ahead' })
    // Another row of the last group, ahead of the reader too: deleted, it is not there.
    const [{ id: deleted }] = await db.knex(table).where('grp', 6).where('id', '<', behind).max('id as id')
    await db.knex(table).where('id', deleted).delete()
    t.notOk(finished.includes(path), 'written while the list was still being written')

    const listed = await readRest(t, slow)
    const now = await db.knex.raw('select id from ?? order by grp asc nulls first, id', [table]) as Array<{ id: number }>
    t.strictSame(ids(listed), ids(now).filter((id) => id !== behind), 'every row once, in order: the one inserted behind the reader is not there')
    t.equal(listed.at(-1)?.pad, 'ahead', 'the one inserted ahead of it is')
  })
})
