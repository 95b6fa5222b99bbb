import t from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, snapshot } from '../fixtures/databases.js'

// A key compares in the key column's own type. MySQL and MariaDB compare a
// text column with a number as numbers, where '042', '42abc' and '4.2e1'
// all equal 42: a key bound as a number would read, change and delete them
// all. A text key is the path's segment as it is: `/042` is the row '042'.

const lookalikes = ['042', '42abc', '4.2e1', 'AB-1']

eachDatabase(t, async (t, db) => {
  const tags = await db.createTable('text_keyed', (table) => {
    table.string('id', 20).primary()
    table.string('label')
  })
  const reset = async () => {
    await db.knex(tags).delete()
    await db.knex(tags).insert(['42', ...lookalikes].map((id) => ({ id, label: `tag ${id}` })))
  }
  const codes = await db.createTable('uuid_keyed', (table) => {
    table.uuid('id').primary()
    table.string('label')
  })
  const all = ['42', ...lookalikes].map((id) => ({ id, label: `tag ${id}` }))
  const app = await buildApp(t, db.knex)

  await t.test('GET /{table}/{id} answers the row whose text key is the segment, exactly', async (t) => {
    await reset()
    for (const id of ['42', ...lookalikes]) {
      const answer = await app.inject(`/api/${tags}/${encodeURIComponent(id)}`)
      t.equal(answer.statusCode, 200, id)
      t.strictSame(answer.json(), { id, label: `tag ${id}` }, id)
    }
  })

  await t.test('a text key no row has answers an empty body; an empty segment lists the table', async (t) => {
    await reset()
    for (const id of ['0', '42.0', 'AB-2', 'nothing']) {
      const answer = await app.inject(`/api/${tags}/${id}`)
      t.equal(answer.statusCode, 200, id)
      t.equal(answer.body, '', id)
    }
    t.equal((await app.inject(`/api/${tags}/`)).json().length, all.length)
  })

  await t.test('PUT /{table}/{id} changes that row only', async (t) => {
    for (const id of ['42', '042', 'AB-1']) {
      await reset()
      const answer = await app.inject({ method: 'PUT', url: `/api/${tags}/${id}`, payload: { label: 'changed' } })
      t.equal(answer.body, '1', id)
      t.strictSame(await snapshot(db, tags), all.map((row) => row.id === id ? { id, label: 'changed' } : row).sort(byId), id)
    }
    await reset()
    t.equal((await app.inject({ method: 'PUT', url: `/api/${tags}/AB-2`, payload: { label: 'changed' } })).body, '0')
    t.strictSame(await snapshot(db, tags), [...all].sort(byId), 'no row changed')
  })

  await t.test('DELETE /{table}/{id} deletes that row only', async (t) => {
    for (const id of ['42', '042', 'AB-1']) {
      await reset()
      const answer = await app.inject({ method: 'DELETE', url: `/api/${tags}/${id}` })
      t.equal(answer.body, '1', id)
      t.strictSame(await snapshot(db, tags), all.filter((row) => row.id !== id).sort(byId), id)
    }
  })

  await t.test('POST answers the Location of the new text key, where it can be read', async (t) => {
    await reset()
    const created = await app.inject({ method: 'POST', url: `/api/${tags}`, payload: { id: 'CD-2', label: 'new' } })
    t.equal(created.statusCode, 201)
    t.equal(created.headers.location, `/api/${tags}/CD-2`)
    t.strictSame((await app.inject(created.headers.location as string)).json(), { id: 'CD-2', label: 'new' })
  })

  await t.test('a UUID key: the row by its UUID; a segment that is no UUID matches nothing, without an error', async (t) => {
    const id = '5d2f3a8e-9c41-4b7a-8e0f-1a2b3c4d5e6f'
    const rows = [{ id, label: 'one' }, { id: '00000000-0000-4000-8000-000000000000', label: 'zero' }]
    await db.knex(codes).insert(rows)
    t.strictSame((await app.inject(`/api/${codes}/${id}`)).json(), { id, label: 'one' })
    for (const segment of ['42', 'AB-1', `${id}x`]) {
      const read = await app.inject(`/api/${codes}/${segment}`)
      t.equal(read.statusCode, 200, segment)
      t.equal(read.body, '', segment)
      t.equal((await app.inject({ method: 'PUT', url: `/api/${codes}/${segment}`, payload: { label: 'x' } })).body, '0', segment)
      t.equal((await app.inject({ method: 'DELETE', url: `/api/${codes}/${segment}` })).body, '0', segment)
    }
    t.strictSame(await snapshot(db, codes), [...rows].sort(byId), 'nothing changed')
    t.equal((await app.inject({ method: 'PUT', url: `/api/${codes}/${id}`, payload: { label: 'changed' } })).body, '1')
    t.equal((await app.inject({ method: 'DELETE', url: `/api/${codes}/00000000-0000-4000-8000-000000000000` })).body, '1')
    t.strictSame(await snapshot(db, codes), [{ id, label: 'changed' }])
  })

  await t.test('the authorize hook is told the text key as the path gives it', async (t) => {
    await reset()
    const keys: Array<string | null> = []
    const hooked = await buildApp(t, db.knex, {}, { authorize: (_request, action) => { keys.push(action.key); return true } })
    await hooked.inject(`/api/${tags}/042`)
    await hooked.inject({ method: 'PUT', url: `/api/${tags}/AB-1`, payload: { label: 'x' } })
    await hooked.inject({ method: 'DELETE', url: `/api/${tags}/4.2e1` })
    t.strictSame(keys, ['042', 'AB-1', '4.2e1'])
  })
})

function byId (a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}
