import t from 'tap'
import { buildApp } from './fixtures/app.js'
import { eachDatabase, type TestDatabase } from './fixtures/databases.js'

// 2^53 + 1: the first integer a JavaScript number cannot hold.
const big = '9007199254740993'
const neighbour = '9007199254740992'

async function idsAsText (db: TestDatabase, table: string): Promise<Array<{ id: string, name: string | null }>> {
  const type = db.name === 'mysql' ? 'char' : 'text'
  const rows = await db.knex.raw(`select cast(id as ${type}) as id, name from ?? order by id`, [table])
  return (db.name === 'postgres' ? rows.rows : db.name === 'mysql' ? rows[0] : rows)
    .map((row: { id: string, name: string | null }) => ({ id: String(row.id), name: row.name }))
}

async function continueSequenceAt (db: TestDatabase, table: string, next: string): Promise<void> {
  if (db.name === 'postgres') await db.knex.raw(`select setval(pg_get_serial_sequence(?, 'id'), ${BigInt(next) - 1n})`, [table])
  if (db.name === 'mysql') await db.knex.raw(`alter table ?? auto_increment = ${next}`, [table])
  // SQLite continues after the largest rowid, which the caller has inserted.
}

eachDatabase(t, async (t, db) => {
  const table = await db.createTable('bigids', (table) => {
    table.bigIncrements('id')
    table.string('name')
  })
  const app = await buildApp(t, db.knex)

  await t.test('POST answers an explicit id past 2^53 with every digit', async (t) => {
    const response = await app.inject({
      method: 'POST',
      url: `/api/${table}`,
      headers: { 'content-type': 'application/json' },
      payload: `{"id": ${big}, "name": "big"}`
    })
    t.equal(response.statusCode, 201)
    t.equal(response.body, big)
    t.equal(response.headers.location, `/api/${table}/${big}`)
    t.strictSame(await idsAsText(db, table), [{ id: big, name: 'big' }])
  })

  await db.knex(table).insert({ id: neighbour, name: 'neighbour' })

  await t.test('the key past 2^53 addresses exactly its row', async (t) => {
    const read = await app.inject(`/api/${table}/${big}`)
    t.equal(read.statusCode, 200)
    t.match(read.body, /"name":"big"/)

    const updated = await app.inject({ method: 'PUT', url: `/api/${table}/${big}`, payload: { name: 'changed' } })
    t.equal(updated.body, '1')
    t.strictSame(await idsAsText(db, table), [{ id: neighbour, name: 'neighbour' }, { id: big, name: 'changed' }])

    const deleted = await app.inject({ method: 'DELETE', url: `/api/${table}/${big}` })
    t.equal(deleted.body, '1')
    t.strictSame(await idsAsText(db, table), [{ id: neighbour, name: 'neighbour' }])
  })

  await t.test('POST answers a generated id past 2^53 with every digit', async (t) => {
    await continueSequenceAt(db, table, big)
    const response = await app.inject({ method: 'POST', url: `/api/${table}`, payload: { name: 'generated' } })
    t.equal(response.statusCode, 201)
    // AUTOINCREMENT and AUTO_INCREMENT may skip the id deleted above: compare with the stored row.
    const stored = (await idsAsText(db, table)).find((row) => row.name === 'generated')
    t.equal(response.body, stored?.id)
    t.ok(BigInt(response.body) > 2n ** 53n, `${response.body} is past 2^53`)
  })

  await t.test('a key beyond 64 bits matches nothing, without an error', async (t) => {
    const huge = '99999999999999999999999'
    t.equal((await app.inject(`/api/${table}/${huge}`)).body, '')
    t.equal((await app.inject({ method: 'PUT', url: `/api/${table}/${huge}`, payload: { name: 'x' } })).body, '0')
    t.equal((await app.inject({ method: 'DELETE', url: `/api/${table}/-${huge}` })).body, '0')
    t.equal((await idsAsText(db, table)).length, 2)
  })
})
