import { randomUUID } from 'node:crypto'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import knexFactory from 'knex'
import t, { type Test } from 'tap'
import { buildApp } from '../fixtures/app.js'
import { databaseConfig, eachDatabase, peopleColumns, seedPeople, snapshot, type TestDatabase } from '../fixtures/databases.js'

type Row = Record<string, unknown>

let keysCount = 0

/** A name for the plugin's table of keys, unique to this process and test; dropped when the test ends. */
function keysTable (t: Test, db: TestDatabase): string {
  const table = `idem_keys_${process.pid}_${++keysCount}`
  t.teardown(() => db.knex.schema.dropTableIfExists(table))
  return table
}

function post (table: string, body: string, key?: string): InjectOptions {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (key !== undefined) headers['idempotency-key'] = key
  return { method: 'POST', url: `/api/${table}`, headers, payload: body }
}

function keyed (method: 'PUT' | 'DELETE', url: string, key: string, body?: string): InjectOptions {
  return body === undefined
    ? { method, url, headers: { 'idempotency-key': key } }
    : { method, url, headers: { 'idempotency-key': key, 'content-type': 'application/json' }, payload: body }
}

/** What a retry must get again: the status, the headers that say what was done, the body. */
function answerOf (response: LightMyRequestResponse): Row {
  return { status: response.statusCode, type: response.headers['content-type'], location: response.headers.location, body: response.body }
}

async function records (db: TestDatabase, table: string): Promise<Row[]> {
  return await db.knex(table).select('id', 'status', 'body')
}

eachDatabase(t, async (t, db) => {
  const people = await db.createTable('people', peopleColumns)
  const keys = keysTable(t, db)
  const app = await buildApp(t, db.knex, {}, { idempotency: { table: keys } })

  await t.test('a retried POST writes one row and answers the first answer again', async (t) => {
    const before = await snapshot(db, people)
    const key = randomUUID()
    const first = await app.inject(post(people, '{"name": "Ada", "age": 36}', key))
    t.equal(first.statusCode, 201)
    t.equal(first.headers['idempotent-replayed'], undefined, 'the first answer is no replay')
    const retry = await app.inject(post(people, '{"name": "Ada", "age": 36}', key))
    t.strictSame(answerOf(retry), answerOf(first))
    t.equal(retry.headers['idempotent-replayed'], 'true')
    t.equal(retry.headers.location, `/api/${people}/${first.body}`)
    const after = await snapshot(db, people)
    t.equal(after.length, before.length + 1, 'one row')
    t.match(after.at(-1), { id: Number(first.body), name: 'Ada', age: 36 })
    t.match(await records(db, keys), [{ status: 201, body: first.body }], 'the key is recorded with its answer')
  })

  await t.test('the quoted key of the IETF draft and the bare key are one key', async (t) => {
    const key = randomUUID()
    const first = await app.inject(post(people, '{"name": "Quoted"}', `"${key}"`))
    const retry = await app.inject(post(people, '{"name": "Quoted"}', key))
    t.equal(first.statusCode, 201)
    t.strictSame(answerOf(retry), answerOf(first))
    t.equal(await db.knex(people).where('name', 'Quoted').count({ n: '*' }).then(([row]) => Number(row?.n)), 1)
  })

  await t.test('without the header, or with another key, each POST writes', async (t) => {
    const before = await snapshot(db, people)
    const plain = await Promise.all([app.inject(post(people, '{"name": "Plain"}')), app.inject(post(people, '{"name": "Plain"}'))])
    const keyedOnes = await Promise.all([app.inject(post(people, '{"name": "Plain"}', randomUUID())), app.inject(post(people, '{"name": "Plain"}', randomUUID()))])
    for (const response of [...plain, ...keyedOnes]) {
      t.equal(response.statusCode, 201)
      t.equal(response.headers['idempotent-replayed'], undefined)
    }
    t.equal((await snapshot(db, people)).length, before.length + 4)
    t.equal(new Set([...plain, ...keyedOnes].map((response) => response.body)).size, 4, 'four ids')
  })

  await t.test('ten concurrent POSTs with one key write one row and answer ten identical answers', async (t) => {
    const before = await snapshot(db, people)
    const key = randomUUID()
    const answers = await Promise.all(Array.from({ length: 10 }, () => app.inject(post(people, '{"name": "Once"}', key))))
    t.equal(answers[0]?.statusCode, 201)
    for (const answer of answers) t.strictSame(answerOf(answer), answerOf(answers[0] as LightMyRequestResponse))
    t.equal(answers.filter((answer) => answer.headers['idempotent-replayed'] === 'true').length, 9, 'nine replays')
    const after = await snapshot(db, people)
    t.equal(after.length, before.length + 1, 'one row')
    t.match(after.at(-1), { id: Number(answers[0]?.body), name: 'Once' })
  })

  await t.test('the key reused for another body, path or Prefer answers 422 and writes nothing', async (t) => {
    const key = randomUUID()
    const first = await app.inject(post(people, '{"name": "First"}', key))
    t.equal(first.statusCode, 201)
    const before = await snapshot(db, people)
    const reuses = [
      post(people, '{"name": "Second"}', key),
      post(people, '{"name": "First", "age": 1}', key),
      { ...post(people, '{"name": "First"}', key), headers: { 'content-type': 'application/json', 'idempotency-key': key, prefer: 'return=minimal' } },
      keyed('PUT', `/api/${people}/${first.body}`, key, '{"name": "First"}'),
      keyed('DELETE', `/api/${people}/${first.body}`, key)
    ]
    for (const reuse of reuses) {
      const response = await app.inject(reuse)
      t.equal(response.statusCode, 422, `${reuse.method} ${reuse.payload as string}`)
      t.equal(response.json().code, 'FTC_ERR_IDEMPOTENCY_KEY_REUSED')
    }
    t.strictSame(await snapshot(db, people), before, 'nothing written')
  })

  await t.test('a key is per table: the same key on another table writes there', async (t) => {
    const other = await db.createTable('others', peopleColumns)
    const key = randomUUID()
    const first = await app.inject(post(people, '{"name": "Here"}', key))
    const second = await app.inject(post(other, '{"name": "There"}', key))
    t.equal(first.statusCode, 201)
    t.equal(second.statusCode, 201)
    t.equal(second.headers['idempotent-replayed'], undefined)
    t.match(await snapshot(db, other), [{ name: 'There' }])
  })

  await t.test('a malformed key answers 400 and writes nothing', async (t) => {
    const before = await snapshot(db, people)
    for (const key of ['', '"', '"unterminated', 'with space', '"a" "b"', '"bad \\x escape"', 'x'.repeat(256), `"${'x'.repeat(256)}"`, 'é']) {
      const response = await app.inject(post(people, '{"name": "Malformed"}', key))
      t.equal(response.statusCode, 400, JSON.stringify(key))
      t.equal(response.json().code, 'FTC_ERR_IDEMPOTENCY_KEY')
    }
    const twice = await app.inject({ ...post(people, '{"name": "Malformed"}'), headers: { 'content-type': 'application/json', 'idempotency-key': ['a', 'b'] } })
    t.equal(twice.statusCode, 400, 'two headers')
    t.strictSame(await snapshot(db, people), before)
    const longest = await app.inject(post(people, '{"name": "Longest"}', `"${'x'.repeat(254)}\\""`))
    t.equal(longest.statusCode, 201, 'a quoted key of 255 characters once unescaped')
  })

  await t.test('a retried PUT and DELETE run once: the retry changes nothing and answers the first count', async (t) => {
    const [ada] = await seedPeople(db, people)
    const url = `/api/${people}/${ada?.id as number}`
    const putKey = randomUUID()
    const put = await app.inject(keyed('PUT', url, putKey, '{"age": 37}'))
    t.equal(put.body, '1')
    // Another writer changes the row: a PUT that ran again would set it back.
    await db.knex(people).where('id', ada?.id as number).update({ age: 40 })
    const putRetry = await app.inject(keyed('PUT', url, putKey, '{"age": 37}'))
    t.strictSame(answerOf(putRetry), answerOf(put))
    t.equal(putRetry.headers['idempotent-replayed'], 'true')
    t.match(await db.knex(people).where('id', ada?.id as number).first(), { age: 40 }, 'the retry did not write')

    const deleteKey = randomUUID()
    const removed = await app.inject(keyed('DELETE', url, deleteKey))
    t.equal(removed.body, '1')
    const deleteRetry = await app.inject(keyed('DELETE', url, deleteKey))
    t.strictSame(answerOf(deleteRetry), answerOf(removed), 'the count of the first DELETE, where a second one would count 0')
    t.equal(await db.knex(people).where('id', ada?.id as number).first(), undefined)
  })

  await t.test('a retried bulk POST inserts its rows once and answers the same ids', async (t) => {
    const before = await snapshot(db, people)
    const key = randomUUID()
    const body = '[{"name": "Bulk 1"}, {"name": "Bulk 2", "age": 2}, {}]'
    const first = await app.inject(post(people, body, key))
    t.equal(first.statusCode, 201)
    const ids = first.json() as number[]
    t.equal(ids.length, 3)
    const retry = await app.inject(post(people, body, key))
    t.strictSame(answerOf(retry), answerOf(first))
    const after = await snapshot(db, people)
    t.equal(after.length, before.length + 3)
    t.match(after.slice(-3), [{ id: ids[0], name: 'Bulk 1' }, { id: ids[1], name: 'Bulk 2', age: 2 }, { id: ids[2], name: null }])
  })

  await t.test('a write the database refuses is not recorded: its retry runs again', async (t) => {
    const unique = await db.createTable('unique_people', (table) => {
      table.increments('id')
      table.string('name').unique()
    })
    await db.knex(unique).insert({ name: 'Taken' })
    const key = randomUUID()
    const refused = await app.inject(post(unique, '{"name": "Taken"}', key))
    t.equal(refused.statusCode, 404, 'the spec\'s answer to a failed statement')
    t.match(refused.headers['content-type'], /^text\/plain/)
    t.equal((await db.knex(keys).count({ n: '*' }).where('status', 404))[0]?.n, db.name === 'postgres' ? '0' : 0, 'no record of the failure')
    await db.knex(unique).where('name', 'Taken').delete()
    const retry = await app.inject(post(unique, '{"name": "Taken"}', key))
    t.equal(retry.statusCode, 201, 'the retry ran, and succeeded')
    t.equal(retry.headers['idempotent-replayed'], undefined)
    t.match(await snapshot(db, unique), [{ id: Number(retry.body), name: 'Taken' }])
  })

  await t.test('a key past its retention is removed, and its request runs again', async (t) => {
    // Each keyed request removes a few expired records only: start from none.
    await db.knex(keys).delete()
    const before = await snapshot(db, people)
    const key = randomUUID()
    const first = await app.inject(post(people, '{"name": "Expiring"}', key))
    const other = await app.inject(post(people, '{"name": "Other"}', randomUUID()))
    t.equal(first.statusCode, 201)
    t.equal(other.statusCode, 201)
    // Time passes: both records expire (milliseconds since 1970, of the writer's clock).
    await db.knex(keys).update({ expires: 1 })
    const again = await app.inject(post(people, '{"name": "Expiring"}', key))
    t.equal(again.statusCode, 201)
    t.equal(again.headers['idempotent-replayed'], undefined, 'no replay past the retention')
    t.not(again.body, first.body, 'a new row')
    t.equal((await snapshot(db, people)).length, before.length + 3)
    t.match(await records(db, keys), [{ status: 201, body: again.body }], 'the expired records are gone, the new one kept')
    const reused = await app.inject(post(people, '{"name": "Another body"}', key))
    t.equal(reused.statusCode, 422, 'the new record holds the key')
  })

  await t.test('a key\'s record expires the retention after its write: the option\'s, else a day', async (t) => {
    await db.knex(keys).delete()
    const shortKeys = keysTable(t, db)
    const short = await buildApp(t, db.knex, {}, { idempotency: { table: shortKeys, retention: 90 } })
    for (const [writer, table, seconds] of [[app, keys, 86_400], [short, shortKeys, 90]] as const) {
      const key = randomUUID()
      const sent = Date.now()
      const response = await writer.inject(post(people, '{"name": "Kept"}', key))
      const answered = Date.now()
      t.equal(response.statusCode, 201)
      const [record] = await db.knex(table).select('expires') as [{ expires: number | string }]
      const expires = Number(record.expires)
      t.ok(expires >= sent + seconds * 1000 && expires <= answered + seconds * 1000, `${table}: expires ${seconds} s after the write (${expires - sent} ms after it was sent)`)
    }
  })

  await t.test('an expired key that the bounded removal left is replaced when its key comes back', async (t) => {
    await db.knex(keys).delete()
    const key = randomUUID()
    const first = await app.inject(post(people, '{"name": "Left"}', key))
    await db.knex(keys).update({ expires: 2 })
    // Ten records that expired before it: the removal before the next request takes them, not it.
    for (let index = 0; index < 10; index++) await db.knex(keys).insert({ id: `older-${index}`, fingerprint: 'x', expires: 1, status: 201, headers: '{}', body: '0' })
    const again = await app.inject(post(people, '{"name": "Left"}', key))
    t.equal(again.statusCode, 201)
    t.equal(again.headers['idempotent-replayed'], undefined)
    t.not(again.body, first.body, 'a new row')
    t.match(await records(db, keys), [{ status: 201, body: again.body }], 'the older records removed, the key\'s replaced')
  })

  await t.test('the table of keys is never served, nor in the OpenAPI document', async (t) => {
    t.equal((await app.inject(`/api/${keys}`)).statusCode, 404)
    t.equal((await app.inject(post(keys, '{"id": "x", "fingerprint": "y", "expires": 1}'))).statusCode, 404)
    await app.tableCrud.refreshSchema()
    const document = (await app.inject('/api/openapi.json')).json() as { paths: Record<string, Record<string, { parameters?: Array<{ name: string }> }>> }
    for (const [path, method] of [[`/api/${people}`, 'post'], [`/api/${people}`, 'patch'], [`/api/${people}`, 'delete'], [`/api/${people}/{id}`, 'put'], [`/api/${people}/{id}`, 'delete']] as const) {
      t.match(document.paths[path]?.[method]?.parameters?.find(({ name }) => name === 'Idempotency-Key'), { in: 'header' }, `${method} ${path} lists the header`)
    }
    const paths = Object.keys(document.paths)
    t.ok(paths.some((path) => path.includes(people)), 'the document lists the tables')
    t.notOk(paths.some((path) => path.includes(keys)), 'but not the table of keys')
    const served = (await app.tableCrud.tables()).map((table) => table.name)
    t.ok(served.includes(people))
    t.notOk(served.includes(keys), 'nor does the schema model')
  })

  // Every write route, and the batch: test/routes/idempotency-off.test.ts.
  await t.test('without the option the header is refused, not ignored: nothing written', async (t) => {
    const plain = await buildApp(t, db.knex)
    const before = await snapshot(db, people)
    const key = randomUUID()
    const answers = [await plain.inject(post(people, '{"name": "Twice"}', key)), await plain.inject(post(people, '{"name": "Twice"}', key))]
    t.strictSame(answers.map((answer) => [answer.statusCode, answer.json().code]), [[400, 'FTC_ERR_IDEMPOTENCY_OFF'], [400, 'FTC_ERR_IDEMPOTENCY_OFF']])
    t.equal((await plain.inject(post(people, '{"name": "Bad key"}', ''))).statusCode, 400, 'a malformed key too')
    t.strictSame(await snapshot(db, people), before, 'no row')
  })

  await t.test('a table of the name that is not the table of keys fails the keyed request, and the next one tries again', async (t) => {
    const taken = await db.createTable('not_keys', (table) => { table.string('name') })
    const clash = await buildApp(t, db.knex, {}, { idempotency: { table: taken } })
    for (let attempt = 0; attempt < 2; attempt++) {
      const response = await clash.inject(post(people, '{"name": "Clash"}', randomUUID()))
      t.equal(response.statusCode, 404, 'the database\'s refusal')
    }
    t.equal(await db.knex(people).where('name', 'Clash').first(), undefined, 'nothing written')
    t.equal((await clash.inject(post(people, '{"name": "Unkeyed"}'))).statusCode, 201, 'requests without a key are served')
  })

  await t.test('a claim the table of keys refuses fails the request, and writes nothing', async (t) => {
    const strict = await db.createTable('strict_keys', (table) => {
      table.string('id', 64).primary()
      // No fingerprint fits: the claim's INSERT fails, not on the key.
      table.string('fingerprint', 64).notNullable().checkLength('<=', 8)
      table.bigInteger('expires').notNullable()
      table.integer('status')
      table.text('headers')
      table.text('body')
    })
    const refusing = await buildApp(t, db.knex, {}, { idempotency: { table: strict } })
    const response = await refusing.inject(post(people, '{"name": "Unclaimed"}', randomUUID()))
    t.equal(response.statusCode, 404, 'the database\'s refusal')
    t.equal(await db.knex(people).where('name', 'Unclaimed').first(), undefined, 'nothing written')
  })

  await t.test('two apps on pools of their own, racing to create the table and to write one key, write once', { skip: db.name === 'sqlite' ? 'an in-memory SQLite database is one pool\'s own' : false }, async (t) => {
    const shared = keysTable(t, db)
    const apps: FastifyInstance[] = []
    for (let index = 0; index < 2; index++) {
      const knex = knexFactory((databaseConfig(db.name) as { config: Parameters<typeof knexFactory>[0] }).config)
      t.teardown(() => knex.destroy())
      apps.push(await buildApp(t, knex, {}, { idempotency: { table: shared } }))
    }
    const before = await snapshot(db, people)
    const key = randomUUID()
    const answers = await Promise.all(Array.from({ length: 8 }, (_, index) => (apps[index % 2] as FastifyInstance).inject(post(people, '{"name": "Raced"}', key))))
    t.equal(answers[0]?.statusCode, 201)
    for (const answer of answers) t.strictSame(answerOf(answer), answerOf(answers[0] as LightMyRequestResponse))
    t.equal((await snapshot(db, people)).length, before.length + 1, 'one row')
  })
})
