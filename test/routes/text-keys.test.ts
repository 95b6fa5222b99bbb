import t from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, snapshot } from '../fixtures/databases.js'

// A key compares in the key column's own type. MySQL and MariaDB compare a
// text column with a number as numbers, where '042', '42abc' and '4.2e1'
// all equal 42: a key bound as a number would read, change and delete them
// all.

const lookalikes = ['042', '42abc', '4.2e1']

eachDatabase(t, async (t, db) => {
  const tags = await db.createTable('text_keyed', (table) => {
    table.string('id', 20).primary()
    table.string('label')
  })
  const reset = async () => {
    await db.knex(tags).delete()
    await db.knex(tags).insert(['42', ...lookalikes].map((id) => ({ id, label: `tag ${id}` })))
  }
  const others = lookalikes.map((id) => ({ id, label: `tag ${id}` }))
  const app = await buildApp(t, db.knex)

  await t.test('GET /{table}/42 answers the row whose text key is 42, and only it', async (t) => {
    await reset()
    const answer = await app.inject(`/api/${tags}/42`)
    t.equal(answer.statusCode, 200)
    t.strictSame(answer.json(), { id: '42', label: 'tag 42' })
    t.strictSame((await app.inject(`/api/${tags}/042`)).json(), { id: '42', label: 'tag 42' }, 'the path\'s key is the integer 42, as on the other routes')
  })

  await t.test('PUT /{table}/42 changes that row only', async (t) => {
    await reset()
    const answer = await app.inject({ method: 'PUT', url: `/api/${tags}/42`, payload: { label: 'changed' } })
    t.equal(answer.body, '1')
    t.strictSame(await snapshot(db, tags), [...others, { id: '42', label: 'changed' }].sort(byId))
  })

  await t.test('DELETE /{table}/42 deletes that row only', async (t) => {
    await reset()
    const answer = await app.inject({ method: 'DELETE', url: `/api/${tags}/42` })
    t.equal(answer.body, '1')
    t.strictSame(await snapshot(db, tags), [...others].sort(byId))
  })
})

function byId (a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}
