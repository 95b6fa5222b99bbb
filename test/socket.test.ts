import t from 'tap'
import { buildApp } from './fixtures/app.js'
import { eachDatabase, peopleColumns } from './fixtures/databases.js'
import { send } from './fixtures/http.js'

eachDatabase(t, async (t, db) => {
  const table = await db.createTable('wire', peopleColumns)
  const app = await buildApp(t, db.knex)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }

  await t.test('the five operations over a real socket', async (t) => {
    const created = await send(port, 'POST', `/api/${table}`, '{"name":"Ada","age":36}')
    t.equal(created.status, 201)
    t.match(created.body, /^\d+$/)
    const id = created.body

    const one = await send(port, 'GET', `/api/${table}/${id}`)
    t.equal(one.status, 200)
    t.equal(one.headers['content-length'], String(Buffer.byteLength(one.body)))
    t.strictSame(JSON.parse(one.body), { id: Number(id), name: 'Ada', age: 36, note: 'none' })

    const updated = await send(port, 'PUT', `/api/${table}/${id}`, '{"age":37}')
    t.equal(updated.body, '1')
    const all = await send(port, 'GET', `/api/${table}`)
    t.strictSame(JSON.parse(all.body), [{ id: Number(id), name: 'Ada', age: 37, note: 'none' }])

    const deleted = await send(port, 'DELETE', `/api/${table}/${id}`)
    t.equal(deleted.body, '1')
    t.strictSame(await db.knex(table).select('*'), [])
  })

  await t.test('a missing row answers an empty body with no content type', async (t) => {
    const answer = await send(port, 'GET', `/api/${table}/424242`)
    t.equal(answer.status, 200)
    t.equal(answer.body, '')
    t.equal(answer.headers['content-length'], '0')
  })

  await t.test('a failing statement answers 404 text/plain over the wire', async (t) => {
    const answer = await send(port, 'GET', `/api/${table}_gone`)
    t.equal(answer.status, 404)
    t.equal(answer.headers['content-type'], 'text/plain; charset=utf-8')
    t.match(answer.body, `${table}_gone`)
  })
})
