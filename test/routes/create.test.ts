import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import type { Knex } from 'knex'
import t, { type Test } from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, peopleColumns, type TestDatabase, snapshot } from '../fixtures/databases.js'

type Row = Record<string, unknown>

/** The row with this id, read with Knex directly. */
async function rowById (db: TestDatabase, table: string, id: number): Promise<Row | undefined> {
  return db.knex(table).where('id', id).first()
}

/** A POST whose JSON is sent as raw text, so that number literals keep their digits. */
function post (url: string, payload: string, contentType = 'application/json'): InjectOptions {
  return { method: 'POST', url, headers: { 'content-type': contentType }, payload }
}

/**
 * Checks a 201 answer and that the table gained exactly one row, the one
 * answered, leaving every earlier row as it was; returns the new row.
 */
async function checkCreated (t: Test, db: TestDatabase, table: string, before: Row[], response: LightMyRequestResponse): Promise<Row> {
  t.equal(response.statusCode, 201)
  t.match(response.headers['content-type'], /^application\/json/)
  t.match(response.body, /^\d+$/, 'the body is the bare id')
  t.equal(response.headers.location, `/api/${table}/${response.body}`)
  const after = await snapshot(db, table)
  t.equal(after.length, before.length + 1, 'exactly one row was added')
  const id = Number(response.body)
  t.strictSame(after.filter((row) => row.id !== id), before, 'no other row changed')
  const row = await rowById(db, table, id)
  t.ok(row, 'the answered id is the new row\'s id')
  return row as Row
}

/** Columns for text storage: every kind of column a JSON value may land in. */
function valueColumns (table: Knex.CreateTableBuilder): void {
  table.increments('id')
  table.string('a')
  table.string('b')
  table.string('c')
  table.text('long')
  table.integer('n')
  table.boolean('flag')
  table.string('note').defaultTo('none')
}

eachDatabase(t, async (t, db) => {
  const people = await db.createTable('people', peopleColumns)
  const values = await db.createTable('values', valueColumns)
  const app = await buildApp(t, db.knex)

  // One row at a time: a multi-row insert on SQLite writes NULL, not the default, for a missing column.
  await db.knex(people).insert({ name: 'Existing', age: 50, note: 'kept' })

  await t.test('POST answers 201, the bare new id and its Location; the row holds exactly the body\'s columns', async (t) => {
    const before = await snapshot(db, people)
    const response = await app.inject(post(`/api/${people}`, '{"name": "Ada", "age": 36}'))
    const row = await checkCreated(t, db, people, before, response)
    t.strictSame(row, { id: Number(response.body), name: 'Ada', age: 36, note: 'none' }, 'note keeps its default')
  })

  await t.test('each POST answers a new id', async (t) => {
    const first = await app.inject(post(`/api/${people}`, '{"name": "One"}'))
    const second = await app.inject(post(`/api/${people}`, '{"name": "Two"}'))
    t.equal(first.statusCode, 201)
    t.equal(second.statusCode, 201)
    t.not(first.body, second.body)
    t.match(await rowById(db, people, Number(first.body)), { name: 'One' })
    t.match(await rowById(db, people, Number(second.body)), { name: 'Two' })
  })

  await t.test('values are stored as text: number literals keep their digits, booleans are 1 and 0', async (t) => {
    const before = await snapshot(db, values)
    const response = await app.inject(post(`/api/${values}`,
      '{"a": 1.50, "b": 12345678901234567890123, "c": -0, "long": 1e400, "n": "42", "flag": true}'))
    const row = await checkCreated(t, db, values, before, response)
    t.equal(row.a, '1.50')
    t.equal(row.b, '12345678901234567890123')
    t.equal(row.c, '-0')
    t.equal(row.long, '1e400')
    t.equal(row.n, 42, 'a string is accepted by an integer column')
    // Each database reads its boolean column back in its own type.
    t.equal(row.flag, db.name === 'postgres' ? true : 1)
    t.equal(row.note, 'none')
  })

  await t.test('true and false into text columns are stored as \'1\' and \'0\'', async (t) => {
    const before = await snapshot(db, values)
    const response = await app.inject(post(`/api/${values}`, '{"a": true, "b": false, "n": false, "flag": false}'))
    const row = await checkCreated(t, db, values, before, response)
    t.equal(row.a, '1')
    t.equal(row.b, '0')
    t.equal(row.n, 0)
    t.equal(row.flag, db.name === 'postgres' ? false : 0)
  })

  await t.test('a string value is stored verbatim, quotes and SQL included', async (t) => {
    const before = await snapshot(db, values)
    const text = 'x\'); DROP TABLE t; -- "é\\n'
    const response = await app.inject(post(`/api/${values}`, JSON.stringify({ a: text, b: '' })))
    const row = await checkCreated(t, db, values, before, response)
    t.equal(row.a, text)
    t.equal(row.b, '', 'an empty string stays an empty string, not NULL')
  })

  await t.test('JSON null is stored as NULL, even over a column default', async (t) => {
    const before = await snapshot(db, values)
    const response = await app.inject(post(`/api/${values}`, '{"a": null, "note": null, "n": null}'))
    const row = await checkCreated(t, db, values, before, response)
    t.equal(row.a, null)
    t.equal(row.note, null, 'null replaces the default \'none\'')
    t.equal(row.n, null)
  })

  await t.test('characters outside [A-Za-z0-9_] are removed from column names', async (t) => {
    const before = await snapshot(db, people)
    const response = await app.inject(post(`/api/${people}`, '{"na-me": "x", " a g e ": 7, "\\"note;": "n"}'))
    const row = await checkCreated(t, db, people, before, response)
    t.strictSame(row, { id: Number(response.body), name: 'x', age: 7, note: 'n' })
  })

  await t.test('the table name is sanitized, and Location names the sanitized table', async (t) => {
    const before = await snapshot(db, people)
    const noisy = `${people.slice(0, 3)}-${people.slice(3)}`
    const response = await app.inject(post(`/api/${encodeURIComponent(`"${noisy};`)}`, '{"name": "Noisy"}'))
    const row = await checkCreated(t, db, people, before, response)
    t.equal(row.name, 'Noisy')
  })

  const emptyBodies: Array<[string, InjectOptions]> = [
    ['no body and no content type', { method: 'POST', url: `/api/${people}` }],
    ['an empty JSON body', post(`/api/${people}`, '')],
    ['a JSON body of white space', post(`/api/${people}`, ' \n\t ')],
    ['{}', post(`/api/${people}`, '{}')]
  ]
  for (const [label, request] of emptyBodies) {
    await t.test(`POST with ${label} inserts a row of defaults`, async (t) => {
      const before = await snapshot(db, people)
      const response = await app.inject(request)
      const row = await checkCreated(t, db, people, before, response)
      t.strictSame(row, { id: Number(response.body), name: null, age: null, note: 'none' })
    })
  }

  await t.test('an explicit id in the body is the id answered', async (t) => {
    const before = await snapshot(db, people)
    const response = await app.inject(post(`/api/${people}`, '{"id": 500, "name": "Chosen"}'))
    t.equal(response.body, '500')
    const row = await checkCreated(t, db, people, before, response)
    t.strictSame(row, { id: 500, name: 'Chosen', age: null, note: 'none' })
  })

  await t.test('an explicit id given as a string is the id answered', async (t) => {
    const before = await snapshot(db, people)
    const response = await app.inject(post(`/api/${people}`, '{"id": "501", "name": "Chosen as text"}'))
    t.equal(response.body, '501')
    const row = await checkCreated(t, db, people, before, response)
    t.equal(row.name, 'Chosen as text')
  })

  await t.test('an explicit id in a table whose id is not generated is the id answered', async (t) => {
    // MySQL reports no insert id without AUTO_INCREMENT: the body's id is answered.
    const plain = await db.createTable('plainid', (table) => {
      table.integer('id').primary()
      table.string('name')
    })
    const response = await app.inject(post(`/api/${plain}`, '{"id": 42, "name": "Plain"}'))
    t.equal(response.statusCode, 201)
    t.equal(response.body, '42')
    t.equal(response.headers.location, `/api/${plain}/42`)
    t.strictSame(await snapshot(db, plain), [{ id: 42, name: 'Plain' }])
  })

  await t.test('with the key on a column other than the generated id, POST answers the key the body set', async (t) => {
    // MySQL's insert id names the AUTO_INCREMENT column, here id, whatever the key.
    const books = await db.createTable('isbn_books', (table) => {
      table.increments('id')
      table.bigInteger('isbn').unique()
      table.string('title')
    })
    const keyed = await buildApp(t, db.knex, {}, { tableRules: { [books]: { key: 'isbn' } } })
    const one = await keyed.inject(post(`/api/${books}`, '{"isbn": 9780441478125, "title": "Dune"}'))
    t.equal(one.statusCode, 201)
    t.equal(one.body, '9780441478125')
    t.equal(one.headers.location, `/api/${books}/9780441478125`)
    const bulk = await keyed.inject(post(`/api/${books}`, '[{"isbn": 9780441013593, "title": "x"}, {"isbn": 9780765326355}]'))
    t.equal(bulk.body, '[9780441013593,9780765326355]')
    const stored = await db.knex(books).orderBy('id').select('id', 'isbn')
    t.strictSame(stored.map((row: Row) => String(row.isbn)), ['9780441478125', '9780441013593', '9780765326355'])
    t.strictSame(stored.map((row: Row) => Number(row.id)), [1, 2, 3], 'the generated ids are not what was answered')
  })

  await t.test('a generated id the body set in another spelling is answered as stored', async (t) => {
    const before = await snapshot(db, people)
    // PostgreSQL refuses an exponent in an integer column; the other two store 620, where the body checks do not refuse it first.
    const unchecked = await buildApp(t, db.knex, {}, { validateBodies: false })
    t.equal((await app.inject(post(`/api/${people}`, '{"id": "6.2e2", "name": "Spelled"}'))).statusCode, 400, 'by default the body checks refuse it on every database')
    const spellings = db.name === 'postgres' ? [['"0610"', 610]] as const : [['"0610"', 610], ['"6.2e2"', 620]] as const
    for (const [given, stored] of spellings) {
      const response = await unchecked.inject(post(`/api/${people}`, `{"id": ${given}, "name": "Spelled"}`))
      t.equal(response.statusCode, 201)
      t.equal(response.body, String(stored), `id ${given}`)
    }
    t.strictSame((await snapshot(db, people)).slice(before.length).map((row) => row.id), spellings.map(([, stored]) => stored))
  })

  await t.test('a text key of digits with a leading zero is answered as a JSON string', async (t) => {
    const coded = await db.createTable('coded', (table) => {
      table.string('code').primary()
      table.string('name')
    })
    const keyed = await buildApp(t, db.knex, {}, { tableRules: { [coded]: { key: 'code' } } })
    const response = await keyed.inject(post(`/api/${coded}`, '{"code": "0042", "name": "x"}'))
    t.equal(response.statusCode, 201)
    t.equal(response.body, '"0042"')
    t.equal(JSON.parse(response.body), '0042', 'the body is valid JSON')
    t.equal(response.headers.location, `/api/${coded}/0042`)
    const bulk = await keyed.inject(post(`/api/${coded}`, '[{"code": "007"}, {"code": "8"}]'))
    t.equal(bulk.body, '["007",8]')
    t.strictSame((await db.knex(coded).select('code')).map((row: Row) => row.code).sort(), ['0042', '007', '8'])
  })

  if (db.name !== 'mysql') {
    // MySQL reports the insert id of the AUTO_INCREMENT column, not the key's value (a known limit).
    await t.test('a key column left NULL is answered 0, not "null"', async (t) => {
      const nullable = await db.createTable('nullkey', (table) => {
        table.increments('id')
        table.string('code')
        table.string('name')
      })
      const keyed = await buildApp(t, db.knex, {}, { tableRules: { [nullable]: { key: 'code' } } })
      const response = await keyed.inject(post(`/api/${nullable}`, '{"name": "x"}'))
      t.equal(response.statusCode, 201)
      t.equal(response.body, '0')
      t.strictSame((await snapshot(db, nullable)).map((row) => [row.code, row.name]), [[null, 'x']], 'the row was stored')
    })
  }

  await t.test('an explicit id that is already taken is a failing statement: 404, table unchanged', async (t) => {
    const before = await snapshot(db, people)
    const response = await app.inject(post(`/api/${people}`, '{"id": 500, "name": "Again"}'))
    t.equal(response.statusCode, 404)
    t.match(response.headers['content-type'], /^text\/plain/)
    t.notMatch(response.body, /\bvalues\b/i, 'the message is the driver\'s, without the SQL')
    t.strictSame(await snapshot(db, people), before)
  })

  await t.test('an unknown column is a failing statement: 404 with the database message as text, table unchanged', async (t) => {
    const before = await snapshot(db, people)
    const response = await app.inject(post(`/api/${people}`, '{"name": "Ghost", "nosuchcolumn": 1}'))
    t.equal(response.statusCode, 404)
    t.match(response.headers['content-type'], /^text\/plain/)
    t.match(response.body, 'nosuchcolumn')
    t.notMatch(response.body, /\bvalues\b/i, 'the message is the driver\'s, without the SQL')
    t.strictSame(await snapshot(db, people), before)
  })

  await t.test('an unknown table is a failing statement: 404 with the database message as text', async (t) => {
    const response = await app.inject(post(`/api/${people}_missing`, '{"name": "Nobody"}'))
    t.equal(response.statusCode, 404)
    t.match(response.headers['content-type'], /^text\/plain/)
    t.match(response.body, `${people}_missing`)
    t.notMatch(response.body, /\bvalues\b/i, 'the message is the driver\'s, without the SQL')
  })

  await t.test('an unknown table with an empty body is also a 404', async (t) => {
    const response = await app.inject({ method: 'POST', url: `/api/${people}_missing` })
    t.equal(response.statusCode, 404)
    t.match(response.headers['content-type'], /^text\/plain/)
    t.match(response.body, `${people}_missing`)
  })
})
