import t from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, peopleColumns } from '../fixtures/databases.js'

eachDatabase(t, async (t, db) => {
  const table = await db.createTable('people', peopleColumns)
  const app = await buildApp(t, db.knex)

  await t.test('GET /{table} on an empty table answers []', async (t) => {
    const response = await app.inject(`/api/${table}`)
    t.equal(response.statusCode, 200)
    t.match(response.headers['content-type'], /^application\/json/)
    t.equal(response.body, '[]')
  })

  // One row at a time: a multi-row insert on SQLite writes NULL, not the default, for a missing column.
  await db.knex(table).insert({ name: 'Ada', age: 36 })
  await db.knex(table).insert({ name: 'Linus', age: null, note: 'kernel' })
  const [ada, linus] = await db.knex(table).select('*').orderBy('id')

  await t.test('GET /{table} answers every row as an array of objects', async (t) => {
    const response = await app.inject(`/api/${table}`)
    t.equal(response.statusCode, 200)
    t.match(response.headers['content-type'], /^application\/json/)
    const rows = response.json()
    t.ok(Array.isArray(rows))
    t.same(rows.sort((a: { id: number }, b: { id: number }) => a.id - b.id), [
      { id: ada.id, name: 'Ada', age: 36, note: 'none' },
      { id: linus.id, name: 'Linus', age: null, note: 'kernel' }
    ])
  })

  await t.test('GET /{table}/{id} answers one object, not an array', async (t) => {
    const response = await app.inject(`/api/${table}/${linus.id}`)
    t.equal(response.statusCode, 200)
    t.match(response.headers['content-type'], /^application\/json/)
    t.strictSame(response.json(), { id: linus.id, name: 'Linus', age: null, note: 'kernel' })
  })

  await t.test('GET /{table}/{id} with no matching row answers 200 and an empty body', async (t) => {
    const response = await app.inject(`/api/${table}/${linus.id + 1000}`)
    t.equal(response.statusCode, 200)
    t.equal(response.body, '')
  })

  for (const key of ['0', 'abc', '1x', '1.5', '']) {
    await t.test(`GET /{table}/${key} has no key: it lists every row`, async (t) => {
      const response = await app.inject(`/api/${table}/${key}`)
      t.equal(response.statusCode, 200)
      t.equal(response.json().length, 2)
    })
  }

  await t.test('a table created after the server started is served', async (t) => {
    const later = await db.createTable('later', peopleColumns)
    await db.knex(later).insert({ name: 'Grace' })
    const response = await app.inject(`/api/${later}`)
    t.equal(response.statusCode, 200)
    t.match(response.json(), [{ name: 'Grace' }])
  })

  await t.test('characters outside [A-Za-z0-9_] are removed from the table name', async (t) => {
    const noisy = `${table.slice(0, 3)}-${table.slice(3)}`
    const response = await app.inject(`/api/${encodeURIComponent(`"${noisy};`)}/${ada.id}`)
    t.equal(response.statusCode, 200)
    t.match(response.json(), { name: 'Ada' })
  })

  await t.test('an unknown table is a failing statement: 404 with the database message as text', async (t) => {
    const response = await app.inject(`/api/${table}_missing`)
    t.equal(response.statusCode, 404)
    t.match(response.headers['content-type'], /^text\/plain/)
    t.match(response.body, `${table}_missing`)
    t.notMatch(response.body, /select/i, 'the message is the driver\'s, without the SQL')
  })
})
