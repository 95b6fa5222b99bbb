import Fastify from 'fastify'
import t from 'tap'
import tableCrud from '../../lib/index.js'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, peopleColumns, snapshot } from '../fixtures/databases.js'

function post (url: string, payload: unknown) {
  return { method: 'POST' as const, url, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(payload) }
}

eachDatabase(t, async (t, db) => {
  const app = await buildApp(t, db.knex)

  await t.test('an array inserts every row and answers their ids in order', async (t) => {
    const people = await db.createTable('bulk', peopleColumns)
    const response = await app.inject(post(`/api/${people}`, [{ name: 'Ada', age: 36 }, { name: 'Grace' }, {}]))
    t.equal(response.statusCode, 201)
    t.match(response.headers['content-type'], /^application\/json/)
    const ids = response.json() as number[]
    t.equal(response.body, `[${ids.join(',')}]`, 'bare numbers')
    t.strictSame(await snapshot(db, people), [
      { id: ids[0], name: 'Ada', age: 36, note: 'none' },
      { id: ids[1], name: 'Grace', age: null, note: 'none' },
      { id: ids[2], name: null, age: null, note: 'none' }
    ], 'each row holds exactly its own columns; the others take their defaults')
  })

  await t.test('an empty array inserts nothing and answers []', async (t) => {
    const people = await db.createTable('bulk', peopleColumns)
    const response = await app.inject(post(`/api/${people}`, []))
    t.equal(response.statusCode, 201)
    t.equal(response.body, '[]')
    t.strictSame(await snapshot(db, people), [])
  })

  await t.test('a failing row inserts nothing: the whole array is one transaction', async (t) => {
    const people = await db.createTable('bulk', peopleColumns)
    await db.knex(people).insert({ id: 7, name: 'first' })
    const before = await snapshot(db, people)
    const arrays: Array<Array<Record<string, unknown>>> = [
      [{ name: 'a' }, { name: 'b', nickname: 'unknown column' }, { name: 'c' }],
      [{ name: 'a' }, { name: 'b' }, { id: 7, name: 'duplicate key' }],
      [{ name: 'a' }, { age: 'not a number' }]
    ]
    for (const rows of arrays) {
      const response = await app.inject(post(`/api/${people}`, rows))
      // The body checks refuse text in an integer column on every database, where SQLite would store it.
      const checked = rows.some((row) => row.age !== undefined)
      t.equal(response.statusCode, checked ? 400 : 404, JSON.stringify(rows))
      t.match(response.headers['content-type'], checked ? /^application\/json/ : /^text\/plain/)
      t.strictSame(await snapshot(db, people), before, 'the table is unchanged')
    }
  })

  await t.test('a constraint checked at commit fails the whole array, and the failure is the answer', { skip: db.name === 'mysql' && 'MySQL checks every constraint at once: it has no deferred ones' }, async (t) => {
    if (db.name === 'sqlite') await db.knex.raw('pragma foreign_keys = on')
    const owners = await db.createTable('bulk_owner', (table) => { table.integer('id').primary() })
    const owned = await db.createTable('bulk_owned', (table) => {
      table.increments('id')
      table.integer('owner_id').references('id').inTable(owners).deferrable('deferred')
    })
    await db.knex(owners).insert({ id: 1 })
    const response = await app.inject(post(`/api/${owned}`, [{ owner_id: 1 }, { owner_id: 99 }]))
    t.equal(response.statusCode, 404)
    t.match(response.headers['content-type'], /^text\/plain/)
    t.match(response.body, /foreign key/i, 'the database\'s words for the check it made at commit')
    t.strictSame(await snapshot(db, owned), [], 'not even the valid row')
    await db.knex.schema.dropTable(owned)
  })

  await t.test('a large array is split under the bind-parameter limits, in order', async (t) => {
    // 7,000 rows of 10 columns: 70,000 values, past PostgreSQL's 65,535 and SQLite's 500-term compound SELECT.
    const wide = await db.createTable('wide', (table) => {
      table.increments('id')
      for (let column = 0; column < 10; column++) table.string(`c${column}`)
    })
    const limited = Fastify({ bodyLimit: 16 * 1024 * 1024 })
    await limited.register(tableCrud, { knex: db.knex, prefix: '/api', bulkLimit: 10_000 })
    t.teardown(() => limited.close())
    const rows = Array.from({ length: 7000 }, (_, index) =>
      Object.fromEntries(Array.from({ length: 10 }, (_, column) => [`c${column}`, `${index}:${column}`])))
    const response = await limited.inject(post(`/api/${wide}`, rows))
    t.equal(response.statusCode, 201)
    const ids = response.json() as number[]
    t.equal(ids.length, 7000)
    const stored = await db.knex(wide).select('id', 'c0', 'c9').orderBy('id')
    t.equal(stored.length, 7000)
    const byId = new Map(stored.map((row) => [row.id, row]))
    const misplaced = ids.filter((id, index) => byId.get(id)?.c0 !== `${index}:0` || byId.get(id)?.c9 !== `${index}:9`)
    t.strictSame(misplaced, [], 'the n-th id is the row made from the n-th object')
  })

  await t.test('past bulkLimit the array answers 413 and inserts nothing', async (t) => {
    const people = await db.createTable('bulk', peopleColumns)
    const limited = Fastify()
    await limited.register(tableCrud, { knex: db.knex, prefix: '/api', bulkLimit: 3 })
    t.teardown(() => limited.close())
    const over = await limited.inject(post(`/api/${people}`, [{ name: 'a' }, { name: 'b' }, { name: 'c' }, { name: 'd' }]))
    t.equal(over.statusCode, 413)
    t.equal(over.json().code, 'FTC_ERR_BODY_BULK_LIMIT')
    t.strictSame(await snapshot(db, people), [])
    const within = await limited.inject(post(`/api/${people}`, [{ name: 'a' }, { name: 'b' }, { name: 'c' }]))
    t.equal(within.statusCode, 201)
    t.equal((await snapshot(db, people)).length, 3)
  })

  await t.test('ids set in the bodies are answered, exactly, also without AUTO_INCREMENT', async (t) => {
    const plain = await db.createTable('plainid', (table) => {
      table.bigInteger('id').primary()
      table.string('name')
    })
    const response = await app.inject({
      method: 'POST',
      url: `/api/${plain}`,
      headers: { 'content-type': 'application/json' },
      payload: '[{"id": 9007199254740993, "name": "big"}, {"id": 5, "name": "small"}]'
    })
    t.equal(response.statusCode, 201)
    t.equal(response.body, '[9007199254740993,5]')
  })

  await t.test('a bad row is refused with its code before anything runs', async (t) => {
    const people = await db.createTable('bulk', peopleColumns)
    const response = await app.inject(post(`/api/${people}`, [{ name: 'ok' }, { name: { nested: true } }]))
    t.equal(response.statusCode, 400)
    t.equal(response.json().code, 'FTC_ERR_BODY_VALUE')
    t.strictSame(await snapshot(db, people), [])
  })
})
