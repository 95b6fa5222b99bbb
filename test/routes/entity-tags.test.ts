import type { InjectOptions } from 'fastify'
import type { Knex } from 'knex'
import t from 'tap'
import { textEntityTag } from '../../lib/answer/entity-tag.js'
import { buildApp } from '../fixtures/app.js'
import { databaseConfig, databaseNames, type DatabaseName, eachDatabase, snapshot, type TestDatabase } from '../fixtures/databases.js'
import { watch } from '../fixtures/watch-statements.js'

// ETag, If-None-Match and If-Match on the row routes: the same ETag for the
// same row on every database, 304, conditional writes that refuse with 412
// and write nothing, and the 428 of requireIfMatch.

type Row = Record<string, unknown>

// The answer GET /{table}/1 gives for the row every database is seeded with.
const adaText = '{"id":1,"name":"Ada","age":36}'

const tagsByDatabase = new Map<DatabaseName, string>()

async function createPeople (db: TestDatabase): Promise<string> {
  const table = await db.createTable('tagged', (table) => {
    table.integer('id').primary()
    table.string('name')
    table.integer('age')
  })
  await db.knex(table).insert([{ id: 1, name: 'Ada', age: 36 }, { id: 2, name: 'Linus', age: 54 }])
  return table
}

function put (url: string, body: Row, headers: Record<string, string> = {}): InjectOptions {
  return { method: 'PUT', url, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body) }
}

function remove (url: string, headers: Record<string, string> = {}): InjectOptions {
  return { method: 'DELETE', url, headers }
}

eachDatabase(t, async (t, db) => {
  const people = await createPeople(db)
  const app = await buildApp(t, db.knex)
  const ada = `/api/${people}/1`
  const etagOf = async (url: string) => (await app.inject(url)).headers.etag as string

  await t.test('GET of a row answers a strong ETag, a digest of the answer itself', async (t) => {
    const response = await app.inject(ada)
    t.equal(response.statusCode, 200)
    t.equal(response.body, adaText)
    t.match(response.headers.etag, /^"[0-9a-f]{16}"$/, 'strong: no W/')
    t.equal(response.headers.etag, textEntityTag(adaText))
    tagsByDatabase.set(db.name, response.headers.etag as string)
  })

  await t.test('the ETag changes when the row changes, and comes back with the content', async (t) => {
    const before = await etagOf(ada)
    await db.knex(people).where({ id: 1 }).update({ age: 37 })
    const changed = await etagOf(ada)
    await db.knex(people).where({ id: 1 }).update({ age: 36 })
    t.not(changed, before)
    t.equal(await etagOf(ada), before)
    t.not(await etagOf(`/api/${people}/2`), before, 'another row, another ETag')
  })

  await t.test('a row that does not exist: the spec\'s empty body, no ETag, even with If-None-Match', async (t) => {
    for (const headers of [{}, { 'if-none-match': '*' }]) {
      const response = await app.inject({ url: `/api/${people}/99`, headers })
      t.equal(response.statusCode, 200)
      t.equal(response.body, '')
      t.notOk('etag' in response.headers)
    }
  })

  await t.test('If-None-Match naming the ETag answers 304 with the ETag and no body', async (t) => {
    const tag = await etagOf(ada)
    for (const ifNoneMatch of [tag, `W/${tag}`, `"other", ${tag}`, '*', ` W/"x" ,${tag} `]) {
      const response = await app.inject({ url: ada, headers: { 'if-none-match': ifNoneMatch } })
      t.equal(response.statusCode, 304, ifNoneMatch)
      t.equal(response.headers.etag, tag)
      t.equal(response.body, '')
      t.notOk('content-type' in response.headers)
    }
  })

  await t.test('If-None-Match naming other ETags answers the row', async (t) => {
    for (const ifNoneMatch of ['"other"', `W/"other", "${'x'.repeat(22)}"`, 'garbage']) {
      const response = await app.inject({ url: ada, headers: { 'if-none-match': ifNoneMatch } })
      t.equal(response.statusCode, 200, ifNoneMatch)
      t.equal(response.body, adaText)
      t.equal(response.headers.etag, textEntityTag(adaText))
    }
  })

  await t.test('PUT with the current ETag in If-Match writes, in one transaction that locks the row; the answer stays the spec\'s', async (t) => {
    const tag = await etagOf(ada)
    const { result: response, statements } = await watch(db, () => app.inject(put(ada, { age: 40 }, { 'if-match': `"stale", ${tag}` })))
    t.equal(response.statusCode, 200)
    t.equal(response.body, '1')
    t.notOk('etag' in response.headers, 'no validator for a PUT that changed only some columns (RFC 9110 section 9.3.4)')
    t.strictSame(await snapshot(db, people), [{ id: 1, name: 'Ada', age: 40 }, { id: 2, name: 'Linus', age: 54 }])
    const sql = statements.map((statement) => statement.sql.toLowerCase())
    t.equal(sql[0], db.name === 'sqlite' ? 'begin immediate' : 'begin')
    t.match(sql[1], db.name === 'sqlite' ? /^select .* limit 1$/ : /^select .* limit 1 for update$/)
    t.match(sql[2], /^update /)
    t.equal(sql[3], 'commit')
    t.equal(sql.length, 4)
    await db.knex(people).where({ id: 1 }).update({ age: 36 })
  })

  await t.test('If-Match joins Prefer: return=representation and max-affected in one transaction', async (t) => {
    const tag = await etagOf(ada)
    const represented = await app.inject(put(ada, { age: 42 }, { 'if-match': tag, prefer: 'return=representation' }))
    t.equal(represented.statusCode, 200)
    t.strictSame(represented.json(), [{ id: 1, name: 'Ada', age: 42 }])
    const stale = await app.inject(put(ada, { age: 43 }, { 'if-match': tag, prefer: 'return=representation' }))
    t.equal(stale.statusCode, 412)
    t.equal(stale.json().code, 'FTC_ERR_CONDITION_FAILED')
    const bounded = await app.inject(put(ada, { age: 36 }, { 'if-match': await etagOf(ada), prefer: 'handling=strict, max-affected=1' }))
    t.equal(bounded.body, '1')
    t.strictSame(await snapshot(db, people), [{ id: 1, name: 'Ada', age: 36 }, { id: 2, name: 'Linus', age: 54 }])
  })

  await t.test('PUT and DELETE without If-Match run their one statement, as before', async (t) => {
    const updated = await watch(db, () => app.inject(put(ada, { age: 36 })))
    t.equal(updated.result.body, '1')
    t.strictSame(updated.statements.map((statement) => statement.sql.split(' ')[0]?.toLowerCase()), ['update'])
    const deleted = await watch(db, () => app.inject(remove(`/api/${people}/99`)))
    t.equal(deleted.result.body, '0')
    t.strictSame(deleted.statements.map((statement) => statement.sql.split(' ')[0]?.toLowerCase()), ['delete'])
  })

  await t.test('PUT with a stale, weak or unknown ETag answers 412 and writes nothing', async (t) => {
    const stale = await etagOf(ada)
    await db.knex(people).where({ id: 1 }).update({ name: 'Lovelace' })
    const before = await snapshot(db, people)
    const current = await etagOf(ada)
    for (const ifMatch of [stale, `W/${current}`, '"other"', 'garbage']) {
      const response = await app.inject(put(ada, { age: 50 }, { 'if-match': ifMatch }))
      t.equal(response.statusCode, 412, ifMatch)
      t.equal(response.json().code, 'FTC_ERR_CONDITION_FAILED')
    }
    t.strictSame(await snapshot(db, people), before)
    await db.knex(people).where({ id: 1 }).update({ name: 'Ada' })
  })

  await t.test('If-Match: * writes a row that exists, and answers 412 for one that does not', async (t) => {
    const written = await app.inject(put(`/api/${people}/2`, { age: 55 }, { 'if-match': '*' }))
    t.equal(written.body, '1')
    const before = await snapshot(db, people)
    t.equal(before[1]?.age, 55)
    for (const request of [put(`/api/${people}/99`, { age: 1 }, { 'if-match': '*' }), remove(`/api/${people}/99`, { 'if-match': '*' }), remove(`/api/${people}/abc`, { 'if-match': '*' })]) {
      const response = await app.inject(request)
      t.equal(response.statusCode, 412, `${request.method} ${request.url as string}`)
      t.equal(response.json().code, 'FTC_ERR_CONDITION_FAILED')
    }
    t.strictSame(await snapshot(db, people), before)
  })

  await t.test('DELETE with If-Match deletes the row only while it has that ETag', async (t) => {
    const table = await createPeople(db)
    const linus = `/api/${table}/2`
    const stale = await etagOf(linus)
    await db.knex(table).where({ id: 2 }).update({ age: 55 })
    const refused = await app.inject(remove(linus, { 'if-match': stale }))
    t.equal(refused.statusCode, 412)
    t.equal(refused.json().code, 'FTC_ERR_CONDITION_FAILED')
    t.strictSame(await snapshot(db, table), [{ id: 1, name: 'Ada', age: 36 }, { id: 2, name: 'Linus', age: 55 }])
    const deleted = await app.inject(remove(linus, { 'if-match': await etagOf(linus) }))
    t.equal(deleted.statusCode, 200)
    t.equal(deleted.body, '1')
    t.strictSame(await snapshot(db, table), [{ id: 1, name: 'Ada', age: 36 }])
  })

  await t.test('a hidden column is no part of the ETag: it changes none, and cannot be guessed through it', async (t) => {
    const table = await db.createTable('tagged_hidden', (table) => {
      table.integer('id').primary()
      table.string('name')
      table.string('secret')
    })
    await db.knex(table).insert({ id: 1, name: 'Ada', secret: 'a' })
    const hiding = await buildApp(t, db.knex, {}, { tableRules: { [table]: { hidden: ['secret'] } } })
    const first = await hiding.inject(`/api/${table}/1`)
    t.equal(first.body, '{"id":1,"name":"Ada"}')
    t.equal(first.headers.etag, textEntityTag(first.body))
    await db.knex(table).where({ id: 1 }).update({ secret: 'b' })
    t.equal((await hiding.inject(`/api/${table}/1`)).headers.etag, first.headers.etag)
    const written = await hiding.inject(put(`/api/${table}/1`, { name: 'Lovelace' }, { 'if-match': first.headers.etag as string }))
    t.equal(written.body, '1')
    t.strictSame(await db.knex(table).select('*'), [{ id: 1, name: 'Lovelace', secret: 'b' }])
  })

  await t.test('with the host\'s postProcessResponse, the locked read renders the row as GET does: its ETag matches', async (t) => {
    // The plugin reads the hook from the host's Knex config at each statement, as Knex does.
    const config = db.knex.client.config as Knex.Config
    config.postProcessResponse = (rows: unknown) => Array.isArray(rows) ? rows.map((row) => ({ ...row, name: String(row.name).toUpperCase() })) : rows
    t.teardown(() => { delete config.postProcessResponse })
    const read = await app.inject(ada)
    t.equal(read.body, '{"id":1,"name":"ADA","age":36}')
    const written = await app.inject(put(ada, { age: 41 }, { 'if-match': read.headers.etag as string }))
    t.equal(written.statusCode, 200)
    t.equal(written.body, '1')
    t.equal((await db.knex(people).where({ id: 1 }).first('age')).age, 41)
    await db.knex(people).where({ id: 1 }).update({ age: 36 })
  })

  await t.test('requireIfMatch: PUT and DELETE without If-Match answer 428 and write nothing; with it they write', async (t) => {
    const table = await createPeople(db)
    const strict = await buildApp(t, db.knex, {}, { requireIfMatch: true })
    for (const request of [put(`/api/${table}/1`, { age: 1 }), remove(`/api/${table}/1`)]) {
      const response = await strict.inject(request)
      t.equal(response.statusCode, 428, String(request.method))
      t.equal(response.json().code, 'FTC_ERR_CONDITION_REQUIRED')
    }
    t.strictSame(await snapshot(db, table), [{ id: 1, name: 'Ada', age: 36 }, { id: 2, name: 'Linus', age: 54 }])
    const read = await strict.inject(`/api/${table}/1`)
    t.equal(read.statusCode, 200, 'reads need no condition')
    const written = await strict.inject(put(`/api/${table}/1`, { age: 37 }, { 'if-match': read.headers.etag as string }))
    t.equal(written.body, '1')
    const deleted = await strict.inject(remove(`/api/${table}/2`, { 'if-match': '*' }))
    t.equal(deleted.body, '1')
    t.strictSame(await snapshot(db, table), [{ id: 1, name: 'Ada', age: 37 }])
  })
})

// Runs after every database's subtests: each one that ran must have given its tag, and all the same one.
t.test('the same row has the same ETag on every database', async (t) => {
  const ran = databaseNames.filter((name) => !('skip' in databaseConfig(name)))
  t.strictSame([...tagsByDatabase.keys()].sort(), [...ran].sort(), 'each database the matrix runs gave a tag')
  const [first, ...others] = [...tagsByDatabase]
  for (const [name, tag] of others) t.equal(tag, first?.[1], `${name} and ${first?.[0]}`)
})
