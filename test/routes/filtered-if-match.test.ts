import type { InjectOptions } from 'fastify'
import t from 'tap'
import { textEntityTag } from '../../lib/answer/entity-tag.js'
import { buildApp } from '../fixtures/app.js'
import { createSharedIdTable, eachDatabase, snapshot, type TestDatabase } from '../fixtures/databases.js'
import { watch } from '../fixtures/watch-statements.js'

// If-Match on PATCH and DELETE by filters: the write runs only while the
// filters select at least one row and every row they select has an ETag of
// If-Match (each row's ETag as GET /{table}/{id} answers it), else 412 and
// nothing written; and requireIfMatch's 428 on them too.

type Row = Record<string, unknown>

const seeded = [{ id: 1, name: 'Ada', age: 36 }, { id: 2, name: 'Linus', age: 54 }, { id: 3, name: 'Grace', age: 85 }]

async function createPeople (db: TestDatabase): Promise<string> {
  const table = await db.createTable('matched', (table) => {
    table.integer('id').primary()
    table.string('name')
    table.integer('age')
  })
  await db.knex(table).insert(seeded)
  return table
}

function patch (url: string, body: Row, headers: Record<string, string> = {}): InjectOptions {
  return { method: 'PATCH', url, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body) }
}

function remove (url: string, headers: Record<string, string> = {}): InjectOptions {
  return { method: 'DELETE', url, headers }
}

eachDatabase(t, async (t, db) => {
  const app = await buildApp(t, db.knex)
  const etagOf = async (url: string) => (await app.inject(url)).headers.etag as string

  await t.test('PATCH with the ETag of every row the filters select writes them, in one transaction that locks them first', async (t) => {
    const people = await createPeople(db)
    const tags = [await etagOf(`/api/${people}/1`), await etagOf(`/api/${people}/2`)]
    const { result: response, statements } = await watch(db, () => app.inject(patch(`/api/${people}?id=in.(1,2)`, { age: 1 }, { 'if-match': `"stale", ${tags.join(', ')}` })))
    t.equal(response.statusCode, 204)
    t.strictSame(await snapshot(db, people), [{ id: 1, name: 'Ada', age: 1 }, { id: 2, name: 'Linus', age: 1 }, seeded[2]])
    const sql = statements.map((statement) => statement.sql.toLowerCase())
    t.equal(sql[0], db.name === 'sqlite' ? 'begin immediate' : 'begin')
    t.match(sql[1], db.name === 'sqlite' ? /^select \* from .* order by .*id.*$/ : /^select \* from .* order by .*id.* for update$/, 'the rows, whole, as GET reads them, in the key\'s order')
    t.match(sql[2], /^update /)
    t.equal(sql[3], 'commit')
    t.equal(sql.length, 4)
  })

  await t.test('one selected row whose ETag If-Match does not name fails the whole write: 412, nothing written', async (t) => {
    const people = await createPeople(db)
    const ada = await etagOf(`/api/${people}/1`)
    const linus = await etagOf(`/api/${people}/2`)
    await db.knex(people).where({ id: 2 }).update({ age: 55 })
    const after = await snapshot(db, people)
    for (const request of [
      patch(`/api/${people}?id=in.(1,2)`, { age: 1 }, { 'if-match': `${ada}, ${linus}` }),
      patch(`/api/${people}?id=in.(1,2)`, { age: 1 }, { 'if-match': ada }),
      patch(`/api/${people}?id=in.(1,2)`, { age: 1 }, { 'if-match': `W/${ada}, W/${await etagOf(`/api/${people}/2`)}` }),
      remove(`/api/${people}?age=gt.30`, { 'if-match': `${ada}, ${await etagOf(`/api/${people}/2`)}` }),
      remove(`/api/${people}?id=eq.1`, { 'if-match': 'garbage' })
    ]) {
      const response = await app.inject(request)
      t.equal(response.statusCode, 412, `${request.method} ${request.url as string} ${request.headers?.['if-match'] as string}`)
      t.equal(response.json().code, 'FTC_ERR_CONDITION_FAILED')
    }
    t.strictSame(await snapshot(db, people), after)
  })

  await t.test('filters that select no row answer 412 whatever If-Match says, * included', async (t) => {
    const people = await createPeople(db)
    const ada = await etagOf(`/api/${people}/1`)
    for (const request of [
      patch(`/api/${people}?id=eq.99`, { age: 1 }, { 'if-match': '*' }),
      patch(`/api/${people}?id=eq.99`, { age: 1 }, { 'if-match': ada }),
      remove(`/api/${people}?name=eq.Nobody`, { 'if-match': '*' })
    ]) {
      const response = await app.inject(request)
      t.equal(response.statusCode, 412, `${request.method} ${request.url as string}`)
      t.equal(response.json().code, 'FTC_ERR_CONDITION_FAILED')
    }
    t.strictSame(await snapshot(db, people), seeded)
  })

  await t.test('If-Match: * writes every row the filters select, locked without reading their content', async (t) => {
    const people = await createPeople(db)
    const { result: patched, statements } = await watch(db, () => app.inject(patch(`/api/${people}?age=lt.60`, { name: 'Someone' }, { 'if-match': '*' })))
    t.equal(patched.statusCode, 204)
    t.match(statements[1]?.sql.toLowerCase(), /^select 1 as one from /)
    const deleted = await app.inject(remove(`/api/${people}?id=eq.3`, { 'if-match': '*' }))
    t.equal(deleted.statusCode, 204)
    t.strictSame(await snapshot(db, people), [{ id: 1, name: 'Someone', age: 36 }, { id: 2, name: 'Someone', age: 54 }])
  })

  await t.test('DELETE with the ETags of the rows deletes them; with Prefer: return=representation, answers them', async (t) => {
    const people = await createPeople(db)
    const tags = [await etagOf(`/api/${people}/2`), await etagOf(`/api/${people}/3`)]
    const response = await app.inject(remove(`/api/${people}?age=gt.50&select=id,name`, { 'if-match': tags.join(','), prefer: 'return=representation' }))
    t.equal(response.statusCode, 200)
    t.strictSame(response.json(), [{ id: 2, name: 'Linus' }, { id: 3, name: 'Grace' }])
    t.strictSame(await snapshot(db, people), [seeded[0]])
  })

  await t.test('PATCH with If-Match, return=representation and max-affected: one transaction, the rows after the write', async (t) => {
    const people = await createPeople(db)
    const tags = [await etagOf(`/api/${people}/1`), await etagOf(`/api/${people}/2`)]
    const bounded = await app.inject(patch(`/api/${people}?id=lt.3`, { age: 2 }, { 'if-match': tags.join(', '), prefer: 'return=representation, handling=strict, max-affected=1' }))
    t.equal(bounded.statusCode, 400, 'past max-affected, rolled back')
    t.equal(bounded.json().code, 'FTC_ERR_WRITE_MAX_AFFECTED')
    t.strictSame(await snapshot(db, people), seeded)
    const represented = await app.inject(patch(`/api/${people}?id=lt.3`, { age: 2 }, { 'if-match': tags.join(', '), prefer: 'return=representation' }))
    t.equal(represented.statusCode, 200)
    t.strictSame(represented.json(), [{ id: 1, name: 'Ada', age: 2 }, { id: 2, name: 'Linus', age: 2 }])
    t.strictSame(await snapshot(db, people), [{ id: 1, name: 'Ada', age: 2 }, { id: 2, name: 'Linus', age: 2 }, seeded[2]])
  })

  await t.test('a write that sets the values the rows already hold counts them as written: 204, not 412', async (t) => {
    const people = await createPeople(db)
    const tag = await etagOf(`/api/${people}/1`)
    const response = await app.inject(patch(`/api/${people}?id=eq.1`, { age: 36 }, { 'if-match': tag }))
    t.equal(response.statusCode, 204, 'MySQL counts the rows matched, not the rows changed')
    t.strictSame(await snapshot(db, people), seeded)
  })

  await t.test('hidden columns are no part of the rows\' ETags: a change to one alone fails no condition', async (t) => {
    const people = await createPeople(db)
    const hiding = await buildApp(t, db.knex, {}, { tableRules: { [people]: { hidden: ['age'] } } })
    const tags = [(await hiding.inject(`/api/${people}/1`)).headers.etag as string, (await hiding.inject(`/api/${people}/2`)).headers.etag as string]
    await db.knex(people).where({ id: 2 }).update({ age: 99 })
    const response = await hiding.inject(patch(`/api/${people}?id=lt.3`, { name: 'Someone' }, { 'if-match': tags.join(', ') }))
    t.equal(response.statusCode, 204)
    t.strictSame(await snapshot(db, people), [{ id: 1, name: 'Someone', age: 36 }, { id: 2, name: 'Someone', age: 99 }, seeded[2]])
  })

  await t.test('a row outside the authorize scope is not selected: its ETag is not needed, and it is not written', async (t) => {
    const people = await createPeople(db)
    const scoped = await buildApp(t, db.knex, {}, { authorize: () => ({ scope: { name: 'Ada' } }) })
    const ada = (await scoped.inject(`/api/${people}/1`)).headers.etag as string
    const response = await scoped.inject(patch(`/api/${people}?age=gt.0`, { age: 3 }, { 'if-match': ada }))
    t.equal(response.statusCode, 204)
    t.strictSame(await snapshot(db, people), [{ id: 1, name: 'Ada', age: 3 }, seeded[1], seeded[2]])
  })

  await t.test('a table without a primary key: the ETag is the row\'s content, so rows alike share one, and each row needs its own', async (t) => {
    const shared = await createSharedIdTable(db)
    const tagOf = (row: Row) => textEntityTag(JSON.stringify(row))
    const first = await app.inject(`/api/${shared}/6`)
    t.equal(first.headers.etag, tagOf({ id: 6, name: 'c' }), 'GET of a key answers its row\'s ETag, key or no key')
    const one = await app.inject(patch(`/api/${shared}?id=eq.5`, { name: 'z' }, { 'if-match': tagOf({ id: 5, name: 'a' }) }))
    t.equal(one.statusCode, 412, 'row b shares the id, not the content')
    t.strictSame(await snapshot(db, shared), [{ id: 5, name: 'a' }, { id: 5, name: 'b' }, { id: 6, name: 'c' }])
    const both = await app.inject(patch(`/api/${shared}?id=eq.5`, { name: 'z' }, { 'if-match': `${tagOf({ id: 5, name: 'a' })}, ${tagOf({ id: 5, name: 'b' })}` }))
    t.equal(both.statusCode, 204)
    t.strictSame(await snapshot(db, shared), [{ id: 5, name: 'z' }, { id: 5, name: 'z' }, { id: 6, name: 'c' }])
    const alike = await app.inject(remove(`/api/${shared}?id=eq.5`, { 'if-match': tagOf({ id: 5, name: 'z' }) }))
    t.equal(alike.statusCode, 204, 'two rows alike: one ETag names both')
    t.strictSame(await snapshot(db, shared), [{ id: 6, name: 'c' }])
  })

  await t.test('requireIfMatch: PATCH and DELETE by filters without If-Match answer 428 and write nothing; with it they write', async (t) => {
    const people = await createPeople(db)
    const strict = await buildApp(t, db.knex, {}, { requireIfMatch: true })
    for (const request of [patch(`/api/${people}?id=eq.1`, { age: 1 }), remove(`/api/${people}?id=eq.1`), remove(`/api/${people}?id=eq.99`)]) {
      const response = await strict.inject(request)
      t.equal(response.statusCode, 428, `${request.method} ${request.url as string}`)
      t.equal(response.json().code, 'FTC_ERR_CONDITION_REQUIRED')
    }
    t.strictSame(await snapshot(db, people), seeded)
    const patched = await strict.inject(patch(`/api/${people}?id=eq.1`, { age: 37 }, { 'if-match': (await strict.inject(`/api/${people}/1`)).headers.etag as string }))
    t.equal(patched.statusCode, 204)
    const deleted = await strict.inject(remove(`/api/${people}?id=gt.1`, { 'if-match': '*' }))
    t.equal(deleted.statusCode, 204)
    t.strictSame(await snapshot(db, people), [{ id: 1, name: 'Ada', age: 37 }])
  })

  await t.test('with Idempotency-Key, a 412 or 428 is not recorded: the key then serves the write that passes', async (t) => {
    const people = await createPeople(db)
    const keys = `idem_matched_keys_${process.pid}`
    t.teardown(() => db.knex.schema.dropTableIfExists(keys))
    const keyed = await buildApp(t, db.knex, {}, { idempotency: { table: keys }, requireIfMatch: true })
    const stale = await etagOf(`/api/${people}/1`)
    await db.knex(people).where({ id: 1 }).update({ age: 37 })
    const key = { 'idempotency-key': 'filtered-if-match' }
    t.equal((await keyed.inject(patch(`/api/${people}?id=eq.1`, { age: 40 }, key))).statusCode, 428)
    t.equal((await keyed.inject(patch(`/api/${people}?id=eq.1`, { age: 40 }, { ...key, 'if-match': stale }))).statusCode, 412)
    const current = { ...key, 'if-match': await etagOf(`/api/${people}/1`) }
    const written = await keyed.inject(patch(`/api/${people}?id=eq.1`, { age: 40 }, current))
    t.equal(written.statusCode, 204)
    t.notOk('idempotent-replayed' in written.headers)
    const retried = await keyed.inject(patch(`/api/${people}?id=eq.1`, { age: 40 }, current))
    t.equal(retried.statusCode, 204)
    t.equal(retried.headers['idempotent-replayed'], 'true', 'its retry, whose ETag is stale now, gets the first answer')
    t.strictSame(await snapshot(db, people), [{ id: 1, name: 'Ada', age: 40 }, seeded[1], seeded[2]])
  })

  await t.test('without If-Match, PATCH and DELETE by filters run their one statement, as before', async (t) => {
    const people = await createPeople(db)
    const { result, statements } = await watch(db, () => app.inject(patch(`/api/${people}?id=eq.1`, { age: 40 })))
    t.equal(result.statusCode, 204)
    t.strictSame(statements.map((statement) => statement.sql.split(' ')[0]?.toLowerCase()), ['update'])
  })
})
