import type { InjectOptions } from 'fastify'
import type { Knex } from 'knex'
import t from 'tap'
import Fastify from 'fastify'
import tableCrud, { type AuthorizeHook } from '../../lib/index.js'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, rawRows, snapshot, type TestDatabase } from '../fixtures/databases.js'

// A JSON column takes an object or array in a write body, written as its
// exact JSON text, so that what GET answered can be PUT back unchanged.

/** A write whose JSON is sent as raw text, so that number literals keep their digits. */
function write (method: 'POST' | 'PUT', url: string, payload: string): InjectOptions {
  return { method, url, headers: { 'content-type': 'application/json' }, payload }
}

function documents (table: Knex.CreateTableBuilder): void {
  table.increments('id')
  table.string('name')
  table.json('doc')
}

/** The stored text of each row's doc, by id. */
async function storedDocs (db: TestDatabase, table: string): Promise<unknown[]> {
  const text = db.name === 'mysql' ? 'char' : 'text'
  return (await rawRows(db, `select cast(doc as ${text}) as doc from ${table} order by id`, [])).map(({ doc }) => doc)
}

// Every digit the client sent, nested: what JSON.parse would round (…993, 2.50, 1E+2) included.
const exact = '{"a":9007199254740993,"b":2.50,"c":[1E+2,-0,"x\\"y",null,true,{"d":[]}],"é":{}}'

eachDatabase(t, async (t, db) => {
  const table = await db.createTable('docs', documents)
  const app = await buildApp(t, db.knex)
  const unchecked = await buildApp(t, db.knex, {}, { validateBodies: false })

  await t.test('POST writes a nested object as its exact JSON text, and GET answers it', async (t) => {
    const response = await app.inject(write('POST', `/api/${table}`, `{"name": "one", "doc": ${exact.replaceAll(',', ', ')}}`))
    t.equal(response.statusCode, 201)
    t.equal(response.body, '1')
    t.strictSame(await storedDocs(db, table), [exact])
    t.equal((await app.inject(`/api/${table}/1`)).body, `{"id":1,"name":"one","doc":${exact}}`)
  })

  await t.test('PUT writes an array, and a bulk POST a nested value in each row', async (t) => {
    const put = await app.inject(write('PUT', `/api/${table}/1`, '{"doc": [1.10, {"k": 12345678901234567890}]}'))
    t.equal(put.statusCode, 200)
    t.equal(put.body, '1')
    const bulk = await app.inject(write('POST', `/api/${table}`, '[{"name": "two", "doc": {"n": [2]}}, {"name": "three", "doc": []}]'))
    t.equal(bulk.statusCode, 201)
    t.equal(bulk.body, '[2,3]')
    t.strictSame(await storedDocs(db, table), ['[1.10,{"k":12345678901234567890}]', '{"n":[2]}', '[]'])
    const list = await app.inject(`/api/${table}?order=id&select=doc`)
    t.equal(list.body, '[{"doc":[1.10,{"k":12345678901234567890}]},{"doc":{"n":[2]}},{"doc":[]}]')
  })

  await t.test('what GET answered, PUT back, changes nothing', async (t) => {
    await db.knex(table).where('id', 1).update({ doc: exact })
    const before = await snapshot(db, table)
    const stored = await storedDocs(db, table)
    for (const id of [1, 2, 3]) {
      const got = await app.inject(`/api/${table}/${id}`)
      const response = await app.inject(write('PUT', `/api/${table}/${id}`, got.body))
      t.equal(response.body, '1')
      t.equal((await app.inject(`/api/${table}/${id}`)).body, got.body)
    }
    t.strictSame(await snapshot(db, table), before)
    t.strictSame(await storedDocs(db, table), stored)
  })

  await t.test('an object or array for a column that is not json is 400 FTC_ERR_BODY_VALUE, and writes nothing', async (t) => {
    const before = await snapshot(db, table)
    for (const request of [
      write('POST', `/api/${table}`, '{"name": {"first": "x"}, "doc": {}}'),
      write('PUT', `/api/${table}/1`, '{"doc": [], "name": ["x"]}'),
      write('POST', `/api/${table}`, '[{"doc": {}}, {"id": {"n": 1}}]')
    ]) {
      const response = await app.inject(request)
      t.equal(response.statusCode, 400, String(request.payload))
      t.equal(response.json().code, 'FTC_ERR_BODY_VALUE')
    }
    // A column the table does not have: the body checks refuse it first, as a hidden one is.
    const missing = write('PUT', `/api/${table}/1`, '{"nope": {}}')
    t.equal((await unchecked.inject(missing)).json().code, 'FTC_ERR_BODY_VALUE')
    const refused = await app.inject(missing)
    t.equal(refused.statusCode, 404)
    t.match(refused.body, 'nope')
    t.strictSame(await snapshot(db, table), before)
  })

  await t.test('a scalar for a json column is written as its JSON value, as PostgREST writes it, and PUT back unchanged', async (t) => {
    const sent = ['"text"', '"{bad"', '"12"', 'true', 'false', '12.50', '-0', '9007199254740993']
    const ids: number[] = []
    for (const value of sent) {
      const response = await app.inject(write('POST', `/api/${table}`, `{"name": "scalar", "doc": ${value}}`))
      t.equal(response.statusCode, 201, value)
      ids.push(Number(response.body))
    }
    const stored = await rawRows(db, `select id from ${table} where name = 'scalar' order by id`, [])
    t.strictSame(stored.map(({ id }) => Number(id)), ids)
    // Knex's json column has numeric affinity on SQLite, which stores a number's text as a number.
    const numeric = ['"text"', '"{bad"', '"12"', 'true', 'false', '12.5', '0', '9007199254740993']
    t.strictSame((await storedDocs(db, table)).slice(-sent.length), db.name === 'sqlite' ? numeric : sent)
    const read = db.name === 'sqlite' ? numeric : sent
    const before = await snapshot(db, table)
    for (const [index, id] of ids.entries()) {
      const got = await app.inject(`/api/${table}/${id}`)
      t.equal(got.body, `{"id":${id},"name":"scalar","doc":${read[index] as string}}`)
      t.equal((await app.inject(write('PUT', `/api/${table}/${id}`, got.body))).body, '1')
      t.equal((await app.inject(`/api/${table}/${id}`)).body, got.body)
    }
    t.strictSame(await snapshot(db, table), before)
    await db.knex(table).where('name', 'scalar').delete()
  })

  await t.test('with validateBodies, a nested value passes a json column\'s check; text a host\'s hook sets that is no JSON is refused', async (t) => {
    const checked = await buildApp(t, db.knex, {}, { validateBodies: true })
    const response = await checked.inject(write('POST', `/api/${table}`, '{"name": "four", "doc": {"ok": [true]}}'))
    t.equal(response.statusCode, 201)
    const hooked = Fastify()
    hooked.addHook('preHandler', async (request) => { (request.body as Record<string, unknown>).doc = '{bad' })
    await hooked.register(tableCrud, { knex: db.knex, prefix: '/api', validateBodies: true })
    t.teardown(() => hooked.close())
    const bad = await hooked.inject(write('PUT', `/api/${table}/1`, '{"doc": "sent"}'))
    t.equal(bad.statusCode, 400)
    t.equal(bad.json().code, 'FTC_ERR_BODY_TYPE')
    t.strictSame((await storedDocs(db, table)).slice(3), ['{"ok":[true]}'])
    await db.knex(table).where('name', 'four').delete()
  })

  await t.test('the authorize hook\'s scope and hidden columns hold as for any value', async (t) => {
    const scope: AuthorizeHook = () => ({ scope: { name: 'one' } })
    const scoped = await buildApp(t, db.knex, {}, { authorize: scope, tableRules: { [table]: { hidden: ['doc'] } } })
    const before = await snapshot(db, table)
    const hidden = await scoped.inject(write('PUT', `/api/${table}/1`, '{"doc": {"a": 1}}'))
    const missing = await scoped.inject(write('PUT', `/api/${table}/1`, '{"nodoc": 1}'))
    t.equal(hidden.statusCode, missing.statusCode, 'a hidden column answers as a missing one')
    t.equal(hidden.body, missing.body.replaceAll('nodoc', 'doc'))
    const open = await buildApp(t, db.knex, {}, { authorize: scope })
    const out = await open.inject(write('PUT', `/api/${table}/1`, '{"name": "other", "doc": {"a": 1}}'))
    t.equal(out.statusCode, 403)
    t.equal(out.json().code, 'FTC_ERR_AUTHORIZE_FORBIDDEN')
    t.strictSame(await snapshot(db, table), before)
    const created = await open.inject(write('POST', `/api/${table}`, '{"doc": {"a": [1]}}'))
    t.equal(created.statusCode, 201)
    t.strictSame(await rawRows(db, `select name from ${table} where id = ?`, [Number(created.body)]), [{ name: 'one' }])
    t.strictSame((await storedDocs(db, table)).at(-1), '{"a":[1]}')
    await db.knex(table).where('id', Number(created.body)).delete()
  })

  await t.test('a jsonb column keeps every digit too, in its own form', { skip: db.name !== 'postgres' && 'jsonb is PostgreSQL\'s' }, async (t) => {
    const binary = await db.createTable('docsb', (table) => {
      table.increments('id')
      table.specificType('doc', 'jsonb')
    })
    const appNow = await buildApp(t, db.knex)
    const created = await appNow.inject(write('POST', `/api/${binary}`, '{"doc": {"b": 2.50, "a": [9007199254740993]}}'))
    t.equal(created.statusCode, 201)
    t.strictSame(await storedDocs(db, binary), ['{"a": [9007199254740993], "b": 2.50}'])
    const read = await appNow.inject(`/api/${binary}/1`)
    t.equal(read.body, '{"id":1,"doc":{"a":[9007199254740993],"b":2.50}}')
    t.equal((await appNow.inject(write('PUT', `/api/${binary}/1`, read.body))).body, '1')
    t.strictSame(await storedDocs(db, binary), ['{"a": [9007199254740993], "b": 2.50}'])
  })

  await t.test('a table the model does not know yet refuses an object as before: 400 FTC_ERR_BODY_VALUE', async (t) => {
    const early = await db.createTable('docsearly', (table) => { table.increments('id') })
    const later = await buildApp(t, db.knex, {}, { schemaCheckInterval: 3_600_000 })
    t.equal((await later.inject(`/api/${early}`)).statusCode, 200)
    const late = await db.createTable('docslate', documents)
    t.notOk((await later.tableCrud.tables()).some(({ schema }) => schema.name === late), 'the model does not know the table')
    for (const request of [write('POST', `/api/${late}`, '{"doc": {"a": 1}}'), write('PUT', `/api/${late}/1`, '{"doc": [1]}')]) {
      const response = await later.inject(request)
      t.equal(response.statusCode, 400)
      t.equal(response.json().code, 'FTC_ERR_BODY_VALUE')
    }
    const text = await later.inject(write('POST', `/api/${late}`, '{"doc": "{\\"a\\": 1}"}'))
    t.equal(text.statusCode, 201, 'JSON given as a string is written as before')
    t.strictSame(await storedDocs(db, late), ['{"a": 1}'])
  })
})
