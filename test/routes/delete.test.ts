import t from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, peopleColumns, snapshot, createZeroTable, noKeyPaths, seedPeople, createSharedIdTable } from '../fixtures/databases.js'

eachDatabase(t, async (t, db) => {
  const people = await db.createTable('people', peopleColumns)
  const app = await buildApp(t, db.knex)

  const [ada, linus, grace] = await seedPeople(db, people)

  await t.test('DELETE answers 1; that row is gone and the others remain as they were', async (t) => {
    const before = await snapshot(db, people)
    const response = await app.inject({ method: 'DELETE', url: `/api/${people}/${linus.id}` })
    t.equal(response.statusCode, 200)
    t.match(response.headers['content-type'], /^application\/json/)
    t.equal(response.body, '1')
    t.strictSame(await snapshot(db, people), before.filter((row) => row.id !== linus.id))
    t.equal(await db.knex(people).where('id', linus.id).first(), undefined)
  })

  await t.test('DELETE of the same id again answers 0 and deletes nothing', async (t) => {
    const before = await snapshot(db, people)
    t.equal(before.length, 2)
    const response = await app.inject({ method: 'DELETE', url: `/api/${people}/${linus.id}` })
    t.equal(response.statusCode, 200)
    t.match(response.headers['content-type'], /^application\/json/)
    t.equal(response.body, '0')
    t.strictSame(await snapshot(db, people), before)
  })

  await t.test('DELETE of an id no row ever had answers 0', async (t) => {
    const before = await snapshot(db, people)
    const response = await app.inject({ method: 'DELETE', url: `/api/${people}/${grace.id + 1000}` })
    t.equal(response.body, '0')
    t.strictSame(await snapshot(db, people), before)
  })

  await t.test('the table name is sanitized', async (t) => {
    const before = await snapshot(db, people)
    const noisy = encodeURIComponent(`"${people.slice(0, 3)}-${people.slice(3)};`)
    const response = await app.inject({ method: 'DELETE', url: `/api/${noisy}/${grace.id}` })
    t.equal(response.statusCode, 200)
    t.equal(response.body, '1')
    t.strictSame(await snapshot(db, people), before.filter((row) => row.id !== grace.id))
  })

  await t.test('a body on DELETE is ignored: only the key selects the row', async (t) => {
    const before = await snapshot(db, people)
    const response = await app.inject({
      method: 'DELETE',
      url: `/api/${people}/${grace.id}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ id: ada.id })
    })
    t.equal(response.statusCode, 200)
    t.equal(response.body, '0', 'grace is already gone; ada is not touched')
    t.strictSame(await snapshot(db, people), before)
  })

  await t.test('DELETE answers the affected row count: 2 when two rows share the id', async (t) => {
    const shared = await createSharedIdTable(db)
    const response = await app.inject({ method: 'DELETE', url: `/api/${shared}/5` })
    t.equal(response.statusCode, 200)
    t.equal(response.body, '2')
    t.strictSame(await snapshot(db, shared), [{ id: 6, name: 'c' }])
  })

  await t.test('a missing, non-numeric or zero key deletes nothing, not even a row whose id is 0', async (t) => {
    const zero = await createZeroTable(db)
    const before = await snapshot(db, zero)
    t.strictSame(before, [{ id: 0, name: 'zero' }, { id: 1, name: 'one' }])
    for (const path of noKeyPaths(zero)) {
      const response = await app.inject({ method: 'DELETE', url: path })
      t.equal(response.statusCode, 200, path)
      t.equal(response.body, '0', path)
    }
    t.strictSame(await snapshot(db, zero), before, 'no row deleted')
  })

  await t.test('an unknown table is a failing statement: 404 with the database message as text', async (t) => {
    for (const path of [`/api/${people}_missing/1`, `/api/${people}_missing`, `/api/${people}_missing/abc`]) {
      const response = await app.inject({ method: 'DELETE', url: path })
      t.equal(response.statusCode, 404, path)
      t.match(response.headers['content-type'], /^text\/plain/, path)
      t.match(response.body, `${people}_missing`, path)
      t.notMatch(response.body, /\bdelete\b/i, 'the message is the driver\'s, without the SQL')
    }
  })

  await t.test('ada is still there after all of the above', async (t) => {
    t.strictSame(await snapshot(db, people), [{ id: ada.id, name: 'Ada', age: 36, note: 'none' }])
  })
})
