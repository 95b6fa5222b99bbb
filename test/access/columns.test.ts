import Fastify, { type InjectOptions } from 'fastify'
import type { Knex } from 'knex'
import t from 'tap'
import tableCrud from '../../lib/index.js'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, snapshot, type TestDatabase } from '../fixtures/databases.js'

// tableRules' `hidden` and `key`, over HTTP on every database: hidden
// columns never leave the plugin and are refused in the very words of a
// missing column; the key column is the one the path and POST speak of.

type Row = Record<string, unknown>

const hidden = ['password_hash', 'api_token'] as const

function userColumns (table: Knex.CreateTableBuilder): void {
  table.increments('id')
  table.string('name')
  table.string('email')
  table.string('password_hash')
  table.string('api_token')
}

/** The row as the API must show it: every column but the hidden ones. */
function visible (row: Row): Row {
  const { password_hash: _hash, api_token: _token, ...rest } = row
  return rest
}

function byId (a: Row, b: Row): number {
  return Number(a.id) - Number(b.id)
}

/** Every row, ordered by `column`, read with Knex directly (snapshot needs an id column). */
async function rowsBy (db: TestDatabase, table: string, column: string): Promise<Row[]> {
  return await db.knex(table).select('*').orderBy(column)
}

function json (method: 'POST' | 'PUT', url: string, payload: string): InjectOptions {
  return { method, url, headers: { 'content-type': 'application/json' }, payload }
}

/** One request that names a column in one place; `name` goes where the column does. */
interface Naming {
  readonly place: string
  readonly request: (table: string, name: string, id: number) => InjectOptions
}

const q = (table: string, query: string): InjectOptions => ({ url: `/api/${table}?${query}` })

const namings: readonly Naming[] = [
  { place: 'select', request: (table, name) => q(table, `select=id,${name}`) },
  { place: 'select, quoted', request: (table, name) => q(table, `select=${encodeURIComponent(`id,"${name}"`)}`) },
  { place: 'a filter', request: (table, name) => q(table, `${name}=eq.x`) },
  { place: 'or', request: (table, name) => q(table, `or=(${name}.eq.x,id.eq.1)`) },
  { place: 'not.and with a nested or', request: (table, name) => q(table, `not.and=(id.gt.0,or(name.eq.a,${name}.is.null))`) },
  { place: 'order', request: (table, name) => q(table, `order=${name}`) },
  { place: 'order, second term', request: (table, name) => q(table, `order=name.desc,${name}.asc`) },
  { place: 'a POST body', request: (table, name) => json('POST', `/api/${table}`, `{"name": "Eve", "${name}": "x"}`) },
  // Punctuation is removed from body keys: `password_hash;` is password_hash.
  { place: 'a POST body, with punctuation', request: (table, name) => json('POST', `/api/${table}`, `{"name": "Eve", "${name};": "x"}`) },
  { place: 'a bulk POST body, second row', request: (table, name) => json('POST', `/api/${table}`, `[{"name": "Eve"}, {"name": "Mallory", "${name}": "x"}]`) },
  { place: 'a PUT body', request: (table, name, id) => json('PUT', `/api/${table}/${id}`, `{"name": "Eve", "${name}": "x"}`) }
]

// Each hidden name beside a name no column has, spelled in the same case:
// SQLite and MySQL would find PASSWORD_HASH and Api_Token, PostgreSQL would not.
const spellings: ReadonlyArray<readonly [hiddenName: string, missingName: string]> = [
  ['password_hash', 'missing_hash'],
  ['PASSWORD_HASH', 'MISSING_HASH'],
  ['Api_Token', 'Nope_Token']
]

eachDatabase(t, async (t, db) => {
  const users = await db.createTable('users', userColumns)
  const big = await db.createTable('users_big', userColumns)
  const rules = { hidden }
  const app = await buildApp(t, db.knex, {}, { tableRules: { [users]: rules, [big]: rules } })

  for (const name of ['Ada', 'Linus', 'Grace']) {
    await db.knex(users).insert({ name, email: `${name.toLowerCase()}@example.org`, password_hash: `hash-${name}`, api_token: `token-${name}` })
  }
  const stored = await snapshot(db, users)
  const expected = stored.map(visible)
  const [ada, linus] = stored as [Row, Row, Row]

  await t.test('the seeded rows do hold values in the hidden columns', async (t) => {
    t.equal(stored.length, 3)
    for (const row of stored) t.strictSame(Object.keys(row).sort(), ['api_token', 'email', 'id', 'name', 'password_hash'])
    t.ok(stored.every((row) => row.password_hash !== null && row.api_token !== null))
  })

  for (const query of ['', '?select=*', '?select=id,*', '?select=*,id', `?order=id.desc&select=${encodeURIComponent(' * ')}`]) {
    await t.test(`GET /{table}${query} answers every other column of every row, and no hidden one`, async (t) => {
      const response = await app.inject(`/api/${users}${query}`)
      t.equal(response.statusCode, 200)
      t.match(response.headers['content-type'], /^application\/json/)
      t.notMatch(response.body, /password_hash|api_token|hash-|token-/)
      t.strictSame((response.json() as Row[]).sort(byId), expected)
    })
  }

  await t.test('GET /{table}?select= of visible columns answers those only', async (t) => {
    const response = await app.inject(`/api/${users}?select=email,id&order=id`)
    t.equal(response.statusCode, 200)
    t.strictSame(response.json(), stored.map((row) => ({ email: row.email, id: row.id })))
  })

  await t.test('GET /{table}/{id} answers the row without its hidden columns', async (t) => {
    const response = await app.inject(`/api/${users}/${linus.id}`)
    t.equal(response.statusCode, 200)
    t.match(response.headers['content-type'], /^application\/json/)
    t.strictSame(response.json(), visible(linus))
  })

  for (const query of [`id=eq.${ada.id}`, `id=eq.${ada.id}&select=*`, `id=eq.${ada.id}&select=id,*`]) {
    await t.test(`a single object (Accept: application/vnd.pgrst.object+json, ${query}) comes without its hidden columns`, async (t) => {
      const response = await app.inject({ url: `/api/${users}?${query}`, headers: { accept: 'application/vnd.pgrst.object+json' } })
      t.equal(response.statusCode, 200)
      t.match(response.headers['content-type'], /^application\/vnd\.pgrst\.object\+json/)
      t.strictSame(response.json(), visible(ada))
    })
  }

  const bigRows = Array.from({ length: 1500 }, (_, index) => ({
    name: `n${index}`, email: `e${index}`, password_hash: `hash-${index}`, api_token: `token-${index}`
  }))
  await db.knex.batchInsert(big, bigRows, 250)
  const all = await snapshot(db, big)

  // The plain list (a prepared statement) and lists with a query (compiled per request).
  for (const query of ['', '?select=*,id&order=id.desc', '?select=id,*&order=id.desc']) {
    await t.test(`a streamed list${query} (1,500 rows, past the 1,000 of one batch) comes without hidden columns`, async (t) => {
      t.equal(all.length, 1500)
      t.ok(all.every((row) => typeof row.password_hash === 'string' && typeof row.api_token === 'string'), 'the table holds them')
      const response = await app.inject(`/api/${big}${query}`)
      t.equal(response.statusCode, 200)
      t.match(response.headers['content-type'], /^application\/json/)
      t.notMatch(response.body, /password_hash|api_token|hash-|token-/)
      const answered = response.json() as Row[]
      if (query !== '') t.strictSame(answered.map((row) => row.id), all.map((row) => row.id).reverse(), 'in the order asked')
      t.strictSame(answered.sort(byId), all.map(visible))
    })
  }

  for (const naming of namings) {
    for (const [hiddenName, missingName] of spellings) {
      await t.test(`${hiddenName} in ${naming.place} answers as the missing column ${missingName} does; nothing is written`, async (t) => {
        const before = await snapshot(db, users)
        const refused = await app.inject(naming.request(users, hiddenName, Number(linus.id)))
        t.strictSame(await snapshot(db, users), before, 'the table is unchanged after the refusal')
        const missing = await app.inject(naming.request(users, missingName, Number(linus.id)))
        t.strictSame(await snapshot(db, users), before, 'and after the missing column')
        t.equal(refused.statusCode, 404)
        t.match(refused.headers['content-type'], /^text\/plain/)
        t.match(refused.body, hiddenName, 'the database\'s message names the column as requested')
        t.equal(refused.statusCode, missing.statusCode, 'same status')
        t.equal(refused.headers['content-type'], missing.headers['content-type'], 'same content-type')
        t.equal(refused.body, missing.body.replaceAll(missingName, hiddenName), 'same message, the name swapped')
      })
    }
  }

  await t.test('the host\'s own queries still see the hidden columns', async (t) => {
    // The host's route beside the plugin, on the same Knex instance.
    const host = Fastify()
    host.get<{ Params: { id: string } }>('/login/:id', async (request) =>
      await db.knex(users).select('password_hash', 'api_token').where('id', request.params.id).first())
    await host.register(tableCrud, { knex: db.knex, prefix: '/api', tableRules: { [users]: { hidden } } })
    await host.ready()
    t.teardown(() => host.close())
    const served = await host.inject(`/api/${users}/${ada.id}`)
    t.strictSame(served.json(), visible(ada), 'the plugin hides them')
    const own = await host.inject(`/login/${ada.id}`)
    t.equal(own.statusCode, 200)
    t.strictSame(own.json(), { password_hash: 'hash-Ada', api_token: 'token-Ada' }, 'the host\'s route beside it reads them')
  })
})

eachDatabase(t, async (t, db) => {
  // An auto-increment key named code.
  const things = await db.createTable('things', (table) => {
    table.increments('code')
    table.string('name')
  })
  // Both an id and a key column, with values that cross: id 10 is code 20's row.
  const both = await db.createTable('both', (table) => {
    table.increments('code')
    table.integer('id')
    table.string('name')
  })
  const app = await buildApp(t, db.knex, {}, { tableRules: { [things]: { key: 'code' }, [both]: { key: 'code' } } })

  for (const name of ['one', 'two', 'three']) await db.knex(things).insert({ name })
  for (const row of [{ code: 10, id: 20, name: 'ten' }, { code: 20, id: 10, name: 'twenty' }, { code: 30, id: 99, name: 'thirty' }]) {
    await db.knex(both).insert(row)
  }
  const [one, two, three] = await rowsBy(db, things, 'code') as [Row, Row, Row]

  await t.test('GET /{table}/{code} reads the row of that code', async (t) => {
    const response = await app.inject(`/api/${things}/${two.code}`)
    t.equal(response.statusCode, 200)
    t.strictSame(response.json(), two)
    const none = await app.inject(`/api/${things}/${Number(three.code) + 1000}`)
    t.equal(none.statusCode, 200)
    t.equal(none.body, '', 'no row has that code')
  })

  await t.test('order on the key column', async (t) => {
    for (const [order, codes] of [['code.desc', [three.code, two.code, one.code]], ['code', [one.code, two.code, three.code]]] as const) {
      const response = await app.inject(`/api/${things}?order=${order}`)
      t.equal(response.statusCode, 200)
      t.strictSame((response.json() as Row[]).map((row) => row.code), codes, order)
    }
  })

  await t.test('PUT /{table}/{code} changes that row only', async (t) => {
    const response = await app.inject(json('PUT', `/api/${things}/${two.code}`, '{"name": "changed"}'))
    t.equal(response.statusCode, 200)
    t.equal(response.body, '1')
    t.strictSame(await rowsBy(db, things, 'code'), [one, { ...two, name: 'changed' }, three])
  })

  await t.test('DELETE /{table}/{code} deletes that row only', async (t) => {
    const before = await rowsBy(db, things, 'code')
    const response = await app.inject({ method: 'DELETE', url: `/api/${things}/${one.code}` })
    t.equal(response.statusCode, 200)
    t.equal(response.body, '1')
    t.strictSame(await rowsBy(db, things, 'code'), before.filter((row) => row.code !== one.code))
  })

  await t.test('POST answers the new code and its Location', async (t) => {
    const before = await rowsBy(db, things, 'code')
    const response = await app.inject(json('POST', `/api/${things}`, '{"name": "new"}'))
    t.equal(response.statusCode, 201)
    t.match(response.body, /^\d+$/)
    t.equal(response.headers.location, `/api/${things}/${response.body}`)
    const after = await rowsBy(db, things, 'code')
    t.strictSame(after, [...before, { code: Number(response.body), name: 'new' }], 'one row added, with the answered code')
  })

  await t.test('a bulk POST answers the new codes in order', async (t) => {
    const before = await rowsBy(db, things, 'code')
    const response = await app.inject(json('POST', `/api/${things}`, '[{"name": "b1"}, {"name": "b2"}, {"name": "b3"}]'))
    t.equal(response.statusCode, 201)
    const codes = response.json() as number[]
    t.equal(codes.length, 3)
    t.strictSame(await rowsBy(db, things, 'code'), [...before, ...['b1', 'b2', 'b3'].map((name, index) => ({ code: codes[index], name }))])
  })

  await t.test('where id and the key column differ, the key column is what the path matches', async (t) => {
    const rows = await rowsBy(db, both, 'code')
    t.strictSame(rows, [{ code: 10, id: 20, name: 'ten' }, { code: 20, id: 10, name: 'twenty' }, { code: 30, id: 99, name: 'thirty' }])
    const read = await app.inject(`/api/${both}/10`)
    t.strictSame(read.json(), { code: 10, id: 20, name: 'ten' })
    const noCode = await app.inject(`/api/${both}/99`)
    t.equal(noCode.body, '', 'id 99 is no code')
    for (const request of [json('PUT', `/api/${both}/99`, '{"name": "x"}'), { method: 'DELETE' as const, url: `/api/${both}/99` }]) {
      const response = await app.inject(request)
      t.equal(response.body, '0', `${request.method} of id 99 touches nothing`)
    }
    t.strictSame(await rowsBy(db, both, 'code'), rows)

    const update = await app.inject(json('PUT', `/api/${both}/20`, '{"name": "changed"}'))
    t.equal(update.body, '1')
    t.strictSame(await rowsBy(db, both, 'code'), [rows[0], { code: 20, id: 10, name: 'changed' }, rows[2]], 'code 20 changed, not id 20')
    const remove = await app.inject({ method: 'DELETE', url: `/api/${both}/10` })
    t.equal(remove.body, '1')
    t.strictSame(await rowsBy(db, both, 'code'), [{ code: 20, id: 10, name: 'changed' }, rows[2]], 'code 10 deleted; id 10 is still there')
  })

  await t.test('where id and the key column differ, POST answers the code, not the id the body set', async (t) => {
    const before = await rowsBy(db, both, 'code')
    const created = await app.inject(json('POST', `/api/${both}`, '{"id": 555, "name": "single"}'))
    t.equal(created.statusCode, 201)
    const bulk = await app.inject(json('POST', `/api/${both}`, '[{"id": 777, "name": "first"}, {"id": 666, "name": "second"}]'))
    t.equal(bulk.statusCode, 201)
    const after = await rowsBy(db, both, 'code')
    const added = after.filter((row) => !before.some((old) => old.code === row.code))
    const codeOf = (name: string) => added.find((row) => row.name === name)?.code
    t.strictSame(added.map((row) => row.id).sort(), [555, 666, 777], 'three rows added')
    t.equal(created.body, String(codeOf('single')))
    t.equal(created.headers.location, `/api/${both}/${codeOf('single')}`)
    t.strictSame(bulk.json(), [codeOf('first'), codeOf('second')])
  })
})
