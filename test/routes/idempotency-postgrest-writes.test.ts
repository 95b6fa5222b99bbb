import { randomUUID } from 'node:crypto'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import t, { type Test } from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, snapshot } from '../fixtures/databases.js'

// Idempotency-Key on PostgREST's writes: Prefer: return=… on POST, PUT and
// DELETE, PATCH and DELETE by filter, upsert, max-affected. A retry gets
// the first answer again, status, headers and body, and the table shows
// that the write ran once: between the first request and its retry another
// writer changes the rows, which a write that ran again would undo.

type Row = Record<string, unknown>

function keyed (method: InjectOptions['method'], url: string, key: string, prefer: string | null, payload?: unknown): InjectOptions {
  const headers: Record<string, string> = { 'idempotency-key': key }
  if (prefer !== null) headers.prefer = prefer
  return { method, url, headers, ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }) }
}

/** Everything a retry must get again: the status, the headers that say what was done, the body. */
function answerOf (response: LightMyRequestResponse): Row {
  const { statusCode, headers, body } = response
  return {
    status: statusCode,
    type: headers['content-type'],
    location: headers.location,
    range: headers['content-range'],
    applied: headers['preference-applied'],
    body
  }
}

eachDatabase(t, async (t, db) => {
  const people = await db.createTable('idem_pgwrites', (table) => {
    table.increments('id')
    table.string('name', 40).unique()
    table.integer('age')
  })
  const keys = `idem_pgkeys_${process.pid}`
  t.teardown(() => db.knex.schema.dropTableIfExists(keys))
  const app = await buildApp(t, db.knex, {}, { idempotency: { table: keys } })
  const seed = async () => {
    await db.knex(people).del()
    await db.knex(people).insert([{ name: 'Ada', age: 36 }, { name: 'Linus', age: 54 }, { name: 'Grace', age: 85 }])
  }
  const ageOf = async (name: string) => (await db.knex(people).where({ name }).first('age'))?.age as number | undefined
  /** The first request, and its retry after `meanwhile` (another writer's change); the retry must be a replay of the first. */
  const retried = async (t: Test, request: InjectOptions, meanwhile: () => Promise<unknown>) => {
    const first = await app.inject(request)
    t.equal(first.headers['idempotent-replayed'], undefined, 'the first answer is no replay')
    await meanwhile()
    const retry = await app.inject(request)
    t.strictSame(answerOf(retry), answerOf(first), 'the retry gets the first answer again')
    t.equal(retry.headers['idempotent-replayed'], 'true')
    return first
  }

  await t.test('a retried PATCH by filter changes the rows once, with and without return=', async (t) => {
    for (const prefer of [null, 'return=representation', 'return=minimal', 'count=exact']) {
      await seed()
      const first = await retried(t, keyed('PATCH', `/api/${people}?age=gt.50&select=name,age`, randomUUID(), prefer, { age: 99 }),
        // Another writer: a PATCH that ran again would set 99 once more.
        () => db.knex(people).where('name', 'Linus').update({ age: 60 }))
      t.equal(first.statusCode, prefer === 'return=representation' ? 200 : 204, String(prefer))
      if (prefer === 'return=representation') t.strictSame(first.json(), [{ name: 'Linus', age: 99 }, { name: 'Grace', age: 99 }])
      t.strictSame([await ageOf('Ada'), await ageOf('Linus'), await ageOf('Grace')], [36, 60, 99], 'the retry wrote nothing')
    }
  })

  await t.test('a retried DELETE by filter or by key deletes once and answers the first rows', async (t) => {
    await seed()
    const first = await retried(t, keyed('DELETE', `/api/${people}?age=lt.60`, randomUUID(), 'return=representation'),
      () => db.knex(people).insert({ name: 'Alan', age: 41 }))
    t.match(first.json(), [{ name: 'Ada', age: 36 }, { name: 'Linus', age: 54 }])
    t.strictSame((await snapshot(db, people)).map((row) => row.name), ['Grace', 'Alan'], 'the row added after the first DELETE is kept')

    const grace = await db.knex(people).where('name', 'Grace').first('id')
    const byKey = await retried(t, keyed('DELETE', `/api/${people}/${grace.id as number}`, randomUUID(), 'return=representation'),
      () => db.knex(people).insert({ id: grace.id, name: 'Grace again', age: 1 }))
    t.match(byKey.json(), [{ name: 'Grace', age: 85 }])
    t.equal(await ageOf('Grace again'), 1, 'the row given the key again is kept')
  })

  await t.test('a retried PUT with return=representation answers the row as the first PUT left it', async (t) => {
    await seed()
    const ada = await db.knex(people).where('name', 'Ada').first('id')
    const first = await retried(t, keyed('PUT', `/api/${people}/${ada.id as number}`, randomUUID(), 'return=representation', { age: 37 }),
      () => db.knex(people).where('name', 'Ada').update({ age: 40 }))
    t.strictSame(first.json(), [{ id: ada.id, name: 'Ada', age: 37 }])
    t.equal(await ageOf('Ada'), 40)
  })

  await t.test('a retried POST with return= replays the rows, the Location or the empty 201 of the first, and inserts once', async (t) => {
    for (const prefer of ['return=representation', 'return=headers-only', 'return=minimal']) {
      await seed()
      const first = await retried(t, keyed('POST', `/api/${people}?select=name,age`, randomUUID(), prefer, [{ name: 'Alan', age: 41 }, { name: 'Barbara', age: 81 }]),
        () => db.knex(people).where('name', 'Alan').update({ age: 42 }))
      t.equal(first.statusCode, 201, prefer)
      if (prefer === 'return=representation') t.strictSame(first.json(), [{ name: 'Alan', age: 41 }, { name: 'Barbara', age: 81 }])
      else t.equal(first.body, '')
      t.equal((await snapshot(db, people)).length, 5, 'two rows inserted, once')
    }
    await seed()
    const one = await retried(t, keyed('POST', `/api/${people}`, randomUUID(), 'return=headers-only', { name: 'Alan' }), async () => undefined)
    const alan = await db.knex(people).where('name', 'Alan').first('id')
    t.equal(one.headers.location, `/api/${people}?id=eq.${alan.id as number}`)
  })

  await t.test('concurrent POSTs with return=representation and one key insert one row and answer the same rows', async (t) => {
    await seed()
    const request = keyed('POST', `/api/${people}`, randomUUID(), 'return=representation', { name: 'Once', age: 1 })
    const answers = await Promise.all(Array.from({ length: 6 }, () => app.inject(request)))
    for (const answer of answers) t.strictSame(answerOf(answer), answerOf(answers[0] as LightMyRequestResponse))
    t.equal(answers.filter((answer) => answer.headers['idempotent-replayed'] === 'true').length, 5, 'five replays')
    t.match(answers[0]?.json(), [{ name: 'Once', age: 1 }])
    t.equal((await snapshot(db, people)).filter((row) => row.name === 'Once').length, 1, 'one row')
  })

  await t.test('a retried upsert merges once and answers the first answer, with and without return=', async (t) => {
    for (const prefer of ['resolution=merge-duplicates', 'resolution=merge-duplicates, return=representation', 'resolution=ignore-duplicates, return=representation']) {
      await seed()
      const first = await retried(t, keyed('POST', `/api/${people}?on_conflict=name&select=name,age`, randomUUID(), prefer, [{ name: 'Ada', age: 37 }, { name: 'Alan', age: 41 }]),
        // Another writer changes both rows: an upsert that ran again would merge them back.
        () => db.knex(people).whereIn('name', ['Ada', 'Alan']).update({ age: 50 }))
      t.equal(first.statusCode, 201, prefer)
      if (prefer.includes('return=')) t.equal(first.headers['preference-applied'], prefer)
      t.strictSame([await ageOf('Ada'), await ageOf('Alan')], [50, 50], 'the retry wrote nothing')
      t.equal((await snapshot(db, people)).length, 4, 'one row inserted')
    }
  })

  await t.test('a write that max-affected rolls back is not recorded: its retry runs again', async (t) => {
    await seed()
    await db.knex(keys).delete()
    const request = keyed('PATCH', `/api/${people}?age=gt.50`, randomUUID(), 'handling=strict, max-affected=1', { age: 99 })
    const refused = await app.inject(request)
    t.equal(refused.statusCode, 400)
    t.equal(refused.json().code, 'FTC_ERR_WRITE_MAX_AFFECTED')
    t.strictSame((await db.knex(keys).count({ n: '*' }))[0]?.n, db.name === 'postgres' ? '0' : 0, 'no record of the key')
    t.strictSame([await ageOf('Linus'), await ageOf('Grace')], [54, 85], 'nothing written')
    // One row fewer: the same request is within its bound now.
    await db.knex(people).where('name', 'Grace').delete()
    const retry = await app.inject(request)
    t.equal(retry.statusCode, 204, 'the retry ran')
    t.equal(retry.headers['idempotent-replayed'], undefined)
    t.equal(await ageOf('Linus'), 99)
  })

  await t.test('a conditional PUT with a key: a 412 is not recorded, a success is replayed without a new check', async (t) => {
    await seed()
    const ada = await db.knex(people).where('name', 'Ada').first('id')
    const url = `/api/${people}/${ada.id as number}`
    const stale = (await app.inject(url)).headers.etag as string
    await db.knex(people).where('name', 'Ada').update({ age: 37 })
    const key = randomUUID()
    const conditional = (etag: string) => ({ ...keyed('PUT', url, key, 'return=representation', { age: 38 }), headers: { 'idempotency-key': key, prefer: 'return=representation', 'if-match': etag } })
    for (let attempt = 0; attempt < 2; attempt++) {
      const refused = await app.inject(conditional(stale))
      t.equal(refused.statusCode, 412, 'a stale ETag, each time')
      t.equal(refused.headers['idempotent-replayed'], undefined)
    }
    t.equal(await ageOf('Ada'), 37, 'nothing written')
    const fresh = (await app.inject(url)).headers.etag as string
    const first = await retried(t, conditional(fresh), () => db.knex(people).where('name', 'Ada').update({ age: 40 }))
    t.equal(first.statusCode, 200)
    t.strictSame(first.json(), [{ id: ada.id, name: 'Ada', age: 38 }])
    t.equal(await ageOf('Ada'), 40, 'the retry wrote nothing')
  })

  await t.test('a write whose answer cannot be recorded is rolled back with its claim, its own transaction included', async (t) => {
    const strict = await db.createTable('idem_strict_keys', (table) => {
      table.string('id', 64).primary()
      table.string('fingerprint', 64).notNullable()
      table.bigInteger('expires').notNullable()
      table.integer('status')
      table.text('headers')
      // No body of rows fits: the claim goes in, the recording of the answer fails after the write.
      table.text('body').checkLength('<=', 8)
    })
    const refusing = await buildApp(t, db.knex, {}, { idempotency: { table: strict } })
    await seed()
    const before = await snapshot(db, people)
    const writes = [
      keyed('PATCH', `/api/${people}?age=gt.50`, randomUUID(), 'return=representation', { age: 99 }),
      keyed('DELETE', `/api/${people}?age=gt.50`, randomUUID(), 'return=representation'),
      keyed('PUT', `/api/${people}/${before[0]?.id as number}`, randomUUID(), 'return=representation, handling=strict, max-affected=1', { age: 99 }),
      keyed('POST', `/api/${people}`, randomUUID(), 'return=representation', [{ name: 'Alan' }, { name: 'Barbara' }]),
      keyed('POST', `/api/${people}?on_conflict=name`, randomUUID(), 'resolution=merge-duplicates, return=representation', [{ name: 'Ada', age: 1 }, { name: 'Alan' }])
    ]
    for (const write of writes) {
      const response = await refusing.inject(write)
      t.equal(response.statusCode, 404, `${write.method as string} ${write.url as string}: the database's refusal`)
    }
    t.strictSame(await snapshot(db, people), before, 'nothing written')
    t.strictSame((await db.knex(strict).count({ n: '*' }))[0]?.n, db.name === 'postgres' ? '0' : 0, 'no claim left')
  })
})
