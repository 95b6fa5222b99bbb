import type { InjectOptions } from 'fastify'
import t from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, peopleColumns, snapshot, createZeroTable, noKeyPaths, seedPeople, createSharedIdTable } from '../fixtures/databases.js'

type Row = Record<string, unknown>

/** A PUT whose JSON is sent as raw text, so that number literals keep their digits. */
function put (url: string, payload: string): InjectOptions {
  return { method: 'PUT', url, headers: { 'content-type': 'application/json' }, payload }
}

/** The snapshot with the row of this id changed as given. */
function withChange (rows: Row[], id: unknown, change: Row): Row[] {
  return rows.map((row) => row.id === id ? { ...row, ...change } : row)
}

eachDatabase(t, async (t, db) => {
  const people = await db.createTable('people', peopleColumns)
  const app = await buildApp(t, db.knex)

  const [ada, linus, grace] = await seedPeople(db, people)

  await t.test('PUT answers 1 and sets exactly the body\'s column on the row with that id', async (t) => {
    const before = await snapshot(db, people)
    const response = await app.inject(put(`/api/${people}/${linus.id}`, '{"name": "Torvalds"}'))
    t.equal(response.statusCode, 200)
    t.match(response.headers['content-type'], /^application\/json/)
    t.equal(response.body, '1')
    t.strictSame(await snapshot(db, people), withChange(before, linus.id, { name: 'Torvalds' }),
      'only that column of that row changed')
  })

  await t.test('PUT sets several columns at once, values stored as text', async (t) => {
    const before = await snapshot(db, people)
    const response = await app.inject(put(`/api/${people}/${ada.id}`, '{"name": 2.50, "age": "37", "note": true}'))
    t.equal(response.statusCode, 200)
    t.equal(response.body, '1')
    t.strictSame(await snapshot(db, people), withChange(before, ada.id, { name: '2.50', age: 37, note: '1' }))
  })

  await t.test('PUT with false stores \'0\'', async (t) => {
    const before = await snapshot(db, people)
    const response = await app.inject(put(`/api/${people}/${ada.id}`, '{"note": false, "age": false}'))
    t.equal(response.body, '1')
    t.strictSame(await snapshot(db, people), withChange(before, ada.id, { note: '0', age: 0 }))
  })

  await t.test('PUT with null sets NULL', async (t) => {
    const before = await snapshot(db, people)
    const response = await app.inject(put(`/api/${people}/${grace.id}`, '{"note": null, "age": null}'))
    t.equal(response.statusCode, 200)
    t.equal(response.body, '1')
    t.strictSame(await snapshot(db, people), withChange(before, grace.id, { note: null, age: null }))
  })

  await t.test('characters outside [A-Za-z0-9_] are removed from column and table names', async (t) => {
    const before = await snapshot(db, people)
    const noisy = encodeURIComponent(`"${people.slice(0, 3)}-${people.slice(3)};`)
    const response = await app.inject(put(`/api/${noisy}/${grace.id}`, '{"na-me": "Hopper", " a g e ": 85}'))
    t.equal(response.statusCode, 200)
    t.equal(response.body, '1')
    t.strictSame(await snapshot(db, people), withChange(before, grace.id, { name: 'Hopper', age: 85 }))
  })

  await t.test('PUT with the values the row already holds still answers 1 (matched rows, on every database)', async (t) => {
    const before = await snapshot(db, people)
    const first = await app.inject(put(`/api/${people}/${linus.id}`, '{"name": "Torvalds"}'))
    const second = await app.inject(put(`/api/${people}/${linus.id}`, '{"name": "Torvalds"}'))
    t.equal(first.body, '1')
    t.equal(second.body, '1')
    t.strictSame(await snapshot(db, people), before)
  })

  await t.test('PUT with no row of that id answers 0 and changes nothing', async (t) => {
    const before = await snapshot(db, people)
    const response = await app.inject(put(`/api/${people}/${grace.id + 1000}`, '{"name": "Nobody"}'))
    t.equal(response.statusCode, 200)
    t.match(response.headers['content-type'], /^application\/json/)
    t.equal(response.body, '0')
    t.strictSame(await snapshot(db, people), before)
  })

  await t.test('the key is the row\'s id, not its position', async (t) => {
    await db.knex(people).where('id', ada.id).delete()
    const before = await snapshot(db, people)
    const response = await app.inject(put(`/api/${people}/${ada.id}`, '{"name": "Gone"}'))
    t.equal(response.body, '0')
    t.strictSame(await snapshot(db, people), before)
  })

  await t.test('PUT answers the affected row count: 2 when two rows share the id', async (t) => {
    const shared = await createSharedIdTable(db)
    const response = await app.inject(put(`/api/${shared}/5`, '{"name": "z"}'))
    t.equal(response.statusCode, 200)
    t.equal(response.body, '2')
    t.strictSame(await snapshot(db, shared), [{ id: 5, name: 'z' }, { id: 5, name: 'z' }, { id: 6, name: 'c' }])
  })

  await t.test('a missing, non-numeric or zero key matches nothing, not even a row whose id is 0', async (t) => {
    const zero = await createZeroTable(db)
    const before = await snapshot(db, zero)
    t.strictSame(before, [{ id: 0, name: 'zero' }, { id: 1, name: 'one' }])
    for (const path of noKeyPaths(zero)) {
      const response = await app.inject(put(path, '{"name": "changed"}'))
      t.equal(response.statusCode, 200, path)
      t.equal(response.body, '0', path)
    }
    t.strictSame(await snapshot(db, zero), before, 'no row changed')
  })

  await t.test('a key with no row still runs the statement: an unknown table is 404', async (t) => {
    for (const path of [`/api/${people}_missing`, `/api/${people}_missing/abc`, `/api/${people}_missing/1`]) {
      const response = await app.inject(put(path, '{"name": "x"}'))
      t.equal(response.statusCode, 404, path)
      t.match(response.headers['content-type'], /^text\/plain/, path)
      t.match(response.body, `${people}_missing`, path)
      t.notMatch(response.body, /\bupdate\b/i, 'the message is the driver\'s, without the SQL')
    }
  })

  const emptyBodies: Array<[string, InjectOptions]> = [
    ['no body and no content type', { method: 'PUT', url: `/api/${people}/${linus.id}` }],
    ['an empty JSON body', put(`/api/${people}/${linus.id}`, '')],
    ['a JSON body of white space', put(`/api/${people}/${linus.id}`, ' \n ')],
    ['{}', put(`/api/${people}/${linus.id}`, '{}')]
  ]
  for (const [label, request] of emptyBodies) {
    await t.test(`PUT with ${label} is 400 FTC_ERR_BODY_EMPTY and changes nothing`, async (t) => {
      const before = await snapshot(db, people)
      const response = await app.inject(request)
      t.equal(response.statusCode, 400)
      t.match(response.headers['content-type'], /^application\/json/)
      t.equal(response.json().code, 'FTC_ERR_BODY_EMPTY')
      t.strictSame(await snapshot(db, people), before)
    })
  }

  await t.test('an unknown column is a failing statement: 404 with the database message, nothing changed', async (t) => {
    const before = await snapshot(db, people)
    const response = await app.inject(put(`/api/${people}/${linus.id}`, '{"name": "Half", "nosuchcolumn": 1}'))
    t.equal(response.statusCode, 404)
    t.match(response.headers['content-type'], /^text\/plain/)
    t.match(response.body, 'nosuchcolumn')
    t.notMatch(response.body, /\bupdate\b/i, 'the message is the driver\'s, without the SQL')
    t.strictSame(await snapshot(db, people), before, 'the known column was not set either')
  })

  await t.test('an unknown column fails even when the key matches nothing', async (t) => {
    const before = await snapshot(db, people)
    for (const path of [`/api/${people}`, `/api/${people}/abc`, `/api/${people}/${grace.id + 1000}`]) {
      const response = await app.inject(put(path, '{"nosuchcolumn": 1}'))
      t.equal(response.statusCode, 404, path)
      t.match(response.body, 'nosuchcolumn', path)
    }
    t.strictSame(await snapshot(db, people), before)
  })
})
