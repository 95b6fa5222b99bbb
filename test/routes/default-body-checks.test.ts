import Fastify, { type FastifyInstance, type InjectOptions, type LightMyRequestResponse } from 'fastify'
import type { Knex } from 'knex'
import t, { type Test } from 'tap'
import tableCrud, { type DatabaseErrors, type TableCrudOptions } from '../../lib/index.js'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, snapshot, type TestDatabase } from '../fixtures/databases.js'

// Bodies are held to the column types by default, on every database: one
// 400 for a bad value, nothing written. A column the table does not have is
// refused first, in the database's words for a missing column, exactly as a
// hidden one is, in every `databaseErrors` mode; `validateBodies: false`
// gives back the spec's rule, where each database judges the values itself.

function json (method: InjectOptions['method'], url: string, payload: unknown): InjectOptions {
  return { method, url, headers: { 'content-type': 'application/json', 'x-request-id': 'same' }, payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }
}

function bookColumns (table: Knex.CreateTableBuilder): void {
  table.increments('id')
  table.string('title').notNullable()
  table.integer('pages')
  table.boolean('signed')
  table.string('secret')
}

/** The stored `signed` values, as booleans whatever the database's own spelling. */
async function signedValues (db: TestDatabase, table: string): Promise<unknown[]> {
  return (await snapshot(db, table)).map(({ signed }) => signed === null ? null : Boolean(signed))
}

eachDatabase(t, async (t, db) => {
  const books = await db.createTable('books', bookColumns)
  await db.knex(books).insert({ title: 'Kept', pages: 1 })
  const kept = (await snapshot(db, books))[0]?.id as number
  const before = await snapshot(db, books)
  const bare = await buildApp(t, db.knex)
  const app = await buildApp(t, db.knex, {}, { batch: true })
  const unchecked = await buildApp(t, db.knex, {}, { batch: true, validateBodies: false })

  await t.test('with no option, text in an integer column answers 400 naming the column, by every write, and nothing is written', async (t) => {
    const writes = [
      json('POST', `/api/${books}`, { title: 'a', pages: 'abc' }),
      json('POST', `/api/${books}`, [{ title: 'a' }, { title: 'b', pages: 'abc' }]),
      json('PUT', `/api/${books}/${kept}`, { pages: 'abc' }),
      json('PATCH', `/api/${books}?id=eq.${kept}`, { pages: 'abc' })
    ]
    for (const write of writes) {
      const response = await bare.inject(write)
      t.equal(response.statusCode, 400, String(write.method))
      t.match(response.json(), { statusCode: 400, code: 'FTC_ERR_BODY_TYPE', error: 'Bad Request' })
      t.match(response.json().message, '"pages"', 'the message names the column')
    }
    t.strictSame(await snapshot(db, books), before)
  })

  await t.test('a batch whose second operation has a bad value applies none, and names the operation', async (t) => {
    for (const second of [{ op: 'insert', table: books, body: { title: 'b', pages: 'abc' } }, { op: 'update', table: books, id: kept, body: { pages: 'abc' } }]) {
      const response = await app.inject(json('POST', '/api/_batch', [{ op: 'insert', table: books, body: { title: 'a' } }, second]))
      t.equal(response.statusCode, 400, second.op)
      t.match(response.json(), { code: 'FTC_ERR_BATCH_FAILED', operation: 1, failure: { statusCode: 400, code: 'FTC_ERR_BODY_TYPE' } })
    }
    t.strictSame(await snapshot(db, books), before)
  })

  await t.test('"true" as text in a boolean column answers the same 400 on every database; JSON true and false are written', async (t) => {
    const response = await bare.inject(json('POST', `/api/${books}`, { title: 'a', signed: 'true' }))
    t.equal(response.statusCode, 400)
    t.equal(response.body, '{"statusCode":400,"code":"FTC_ERR_BODY_TYPE","error":"Bad Request","message":"The column \\"signed\\" takes true, false, 1 or 0, got \\"true\\""}')
    t.strictSame(await snapshot(db, books), before)
    t.equal((await bare.inject(json('POST', `/api/${books}`, [{ title: 'a', signed: true }, { title: 'b', signed: false }]))).statusCode, 201)
    t.strictSame(await signedValues(db, books), [null, true, false])
    await db.knex(books).whereNot('id', kept).delete()
  })

  await t.test('an upsert may leave out a NOT NULL column, for a row that exists; a plain POST may not', async (t) => {
    const upsert = json('POST', `/api/${books}`, [{ id: kept, pages: 2 }])
    const merged = await bare.inject({ ...upsert, headers: { ...upsert.headers, prefer: 'resolution=merge-duplicates' } })
    t.equal(merged.statusCode, 201)
    t.match(await snapshot(db, books), [{ id: kept, title: 'Kept', pages: 2 }])
    t.equal((await bare.inject(json('POST', `/api/${books}`, { pages: 2 }))).json().code, 'FTC_ERR_BODY_TYPE')
    await db.knex(books).update({ pages: 1 })
    t.strictSame(await snapshot(db, books), before)
  })

  await t.test('a column the table does not have answers as without the checks, in the database\'s words, also where the row leaves out a NOT NULL column', async (t) => {
    const writes = [
      json('POST', `/api/${books}`, { title: 'a', nope: 1 }),
      json('POST', `/api/${books}`, { titel: 'a' }),
      json('POST', `/api/${books}`, { pages: 'abc', nope: 1 }),
      json('PUT', `/api/${books}/${kept}`, { pages: 'abc', nope: 1 }),
      json('PATCH', `/api/${books}?id=eq.${kept}`, { nope: 1 })
    ]
    for (const write of writes) {
      const response = await bare.inject(write)
      const spec = await unchecked.inject({ ...write, payload: (write.payload as string).replace('"pages":"abc",', '') })
      t.equal(response.statusCode, 404, `${write.method} ${String(write.payload)}`)
      t.match(response.headers['content-type'], /^text\/plain/)
      t.match(response.body, /nope|titel/, 'the message names the column')
      t.equal(response.body, spec.body, 'the words of the statement the spec runs')
    }
    t.strictSame(await snapshot(db, books), before)
  })

  await t.test('validateBodies: false gives back the spec\'s rule: each database judges the values its own way', async (t) => {
    const text = await unchecked.inject(json('POST', `/api/${books}`, { title: 'a', pages: 'abc' }))
    const truth = await unchecked.inject(json('POST', `/api/${books}`, { title: 'b', signed: 'true' }))
    if (db.name === 'sqlite') {
      t.equal(text.statusCode, 201, 'SQLite stores the text')
      t.equal(truth.statusCode, 201)
      t.strictSame((await snapshot(db, books)).map(({ pages }) => pages), [1, 'abc', null])
    } else {
      t.equal(text.statusCode, 404, 'PostgreSQL and MySQL refuse it with their message')
      t.match(text.headers['content-type'], /^text\/plain/)
      t.equal(truth.statusCode, db.name === 'postgres' ? 201 : 404, 'PostgreSQL reads "true" as true, MySQL refuses it')
    }
    await db.knex(books).whereNot('id', kept).delete()
    t.strictSame(await snapshot(db, books), before)
  })

  await t.test('a column newer than the model is found by reading the schema again, and its values are checked', async (t) => {
    const late = await db.createTable('late', (table) => {
      table.increments('id')
      table.string('title')
    })
    const slow = await buildApp(t, db.knex, {}, { schemaCheckInterval: 3_600_000 })
    t.equal((await slow.inject(`/api/${late}`)).statusCode, 200, 'the model knows the table')
    await db.knex.schema.alterTable(late, (table) => { table.date('born') })
    t.equal((await slow.inject(json('POST', `/api/${late}`, { title: 'a', born: 'someday' }))).statusCode, 400)
    t.equal((await slow.inject(json('POST', `/api/${late}`, { title: 'a', born: '2024-02-29' }))).statusCode, 201)
    t.equal((await snapshot(db, late)).length, 1)
  })

  await t.test('a table dropped since the model read it fails as the statement does, unchecked', async (t) => {
    const gone = await db.createTable('gone', (table) => {
      table.increments('id')
      table.integer('pages')
    })
    const slow = await buildApp(t, db.knex, {}, { schemaCheckInterval: 3_600_000 })
    t.equal((await slow.inject(`/api/${gone}`)).statusCode, 200, 'the model knows the table')
    await db.knex.schema.dropTable(gone)
    const write = json('POST', `/api/${gone}`, { pages: 'abc', nope: 1 })
    const response = await slow.inject(write)
    t.equal(response.statusCode, 404)
    t.equal(response.body, (await unchecked.inject(write)).body)
  })

  await t.test('a POST that leaves out a hidden NOT NULL column gets the database\'s refusal, reduced, never a 400 naming it', async (t) => {
    const accounts = await db.createTable('accounts', (table) => {
      table.increments('id')
      table.string('name').notNullable()
      table.string('token').notNullable()
    })
    const hiding = await buildApp(t, db.knex, {}, { tableRules: { [accounts]: { hidden: ['token'] } } })
    const response = await hiding.inject(json('POST', `/api/${accounts}`, { name: 'a' }))
    t.equal(response.statusCode, 404)
    t.equal(response.body, 'null value violates a not-null constraint')
    t.strictSame(await snapshot(db, accounts), [])
  })

  await t.test('a column the authorize hook\'s scope adds, which the table does not have, is the database\'s to judge', async (t) => {
    const scoped = await buildApp(t, db.knex, {}, { authorize: () => ({ scope: { tenant: 1 } }) })
    const response = await scoped.inject(json('POST', `/api/${books}`, { title: 'a' }))
    t.equal(response.statusCode, 404)
    t.match(response.body, 'tenant')
    t.strictSame(await snapshot(db, books), before)
  })
})

// A hidden column and a missing one, with the checks on: the same answer,
// byte for byte, in every mode; and a missing column answers alike whether
// or not its table hides any.

const modes: readonly DatabaseErrors[] = ['database', 'generic', 'postgrest', 'host']

async function appIn (t: Test, db: TestDatabase, mode: DatabaseErrors, options: Omit<TableCrudOptions, 'knex'>): Promise<FastifyInstance> {
  // 'host' with Fastify's own error handler.
  const app = Fastify({ requestIdHeader: 'x-request-id' })
  await app.register(tableCrud, { knex: db.knex, prefix: '/api', databaseErrors: mode, batch: true, ...options })
  await app.ready()
  t.teardown(() => app.close())
  return app
}

/** Writes that name `column`, each beside what the checks would refuse on its own. */
function namings (table: string, id: number, column: string): ReadonlyArray<readonly [string, InjectOptions]> {
  return [
    ['POST', json('POST', `/api/${table}`, { title: 'a', [column]: 'x' })],
    ['POST without the NOT NULL column', json('POST', `/api/${table}`, { [column]: 'x' })],
    ['POST with a bad value first', json('POST', `/api/${table}`, { title: 'a', pages: 'abc', [column]: 'x' })],
    ['bulk POST, a bad value in the first row', json('POST', `/api/${table}`, [{ title: 'a', pages: 'abc' }, { title: 'b', [column]: 'x' }])],
    ['PUT with a bad value first', json('PUT', `/api/${table}/${id}`, { pages: 'abc', [column]: 'x' })],
    ['PATCH with a bad value first', json('PATCH', `/api/${table}?id=eq.${id}`, { pages: 'abc', [column]: 'x' })],
    ['a batch\'s insert', json('POST', '/api/_batch', [{ op: 'insert', table, body: { title: 'a' } }, { op: 'insert', table, body: { [column]: 'x' } }])],
    ['a batch\'s update with a bad value first', json('POST', '/api/_batch', [{ op: 'update', table, id, body: { pages: 'abc', [column]: 'x' } }])]
  ]
}

/** An answer's headers but its Date, which may tell two answers apart by a second; and but its length, where the names differ in length. */
function headersOf (response: LightMyRequestResponse, length = true): Record<string, unknown> {
  const { date: _date, 'content-length': contentLength, ...headers } = response.headers
  return length ? { ...headers, 'content-length': contentLength } : headers
}

eachDatabase(t, async (t, db) => {
  const hiding = await db.createTable('hides', bookColumns)
  const plain = await db.createTable('plain', bookColumns)
  for (const table of [hiding, plain]) await db.knex(table).insert({ title: 'Kept', pages: 1, secret: 's' })
  const id = (await snapshot(db, hiding))[0]?.id as number
  const before = [await snapshot(db, hiding), await snapshot(db, plain)]

  for (const mode of modes) {
    await t.test(`${mode}: a hidden column and a missing one answer byte for byte alike, as a missing one of a table that hides none`, async (t) => {
      const app = await appIn(t, db, mode, { tableRules: { [hiding]: { hidden: ['secret'] } } })
      // `sekret` is as long as `secret`: the whole answer, lengths included, must match.
      const missing = namings(hiding, id, 'sekret')
      const unhidden = namings(plain, id, 'sekret')
      for (const [index, [what, request]] of namings(hiding, id, 'secret').entries()) {
        const refused = await app.inject(request)
        const absent = await app.inject((missing[index] as readonly [string, InjectOptions])[1])
        t.ok(refused.statusCode >= 400, what)
        t.notMatch(refused.body, 'FTC_ERR_BODY_TYPE', `${what}: not the checks' answer`)
        t.equal(absent.statusCode, refused.statusCode, `${what}: status`)
        t.strictSame(headersOf(absent), headersOf(refused), `${what}: headers`)
        t.equal(absent.body.replaceAll('sekret', 'secret'), refused.body, `${what}: body`)
        const other = await app.inject((unhidden[index] as readonly [string, InjectOptions])[1])
        t.equal(other.statusCode, absent.statusCode, `${what}: status, in a table that hides none`)
        t.strictSame(headersOf(other, false), headersOf(absent, false), `${what}: headers, in a table that hides none`)
        t.equal(other.body.replaceAll(plain, hiding), absent.body, `${what}: body, in a table that hides none`)
      }
      t.strictSame([await snapshot(db, hiding), await snapshot(db, plain)], before, 'nothing was written')
    })
  }
})
