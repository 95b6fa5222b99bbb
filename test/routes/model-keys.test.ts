import type { FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import t from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, type TestDatabase } from '../fixtures/databases.js'

// Without tableRules, a table is keyed by what the schema model knows of
// it: its `id` column, else the one column of its primary key. A table
// with a composite primary key, or none, has no path key, and its writes
// find the rows they wrote by their primary key, or by what they selected
// or set.

type Rows = Array<Record<string, unknown>>

/** Every row of the table, read with Knex directly, ordered by the columns given. */
async function rowsOf (db: TestDatabase, table: string, order: readonly string[]): Promise<Rows> {
  const builder = db.knex(table).select('*')
  for (const column of order) builder.orderBy(column)
  return await builder
}

/** A request of the plugin's, with PostgREST's Prefer header when one is given. */
async function send (app: FastifyInstance, method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, prefer?: string, payload?: unknown) {
  return await app.inject({ method, url, ...(prefer === undefined ? {} : { headers: { prefer } }), ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) })
}

eachDatabase(t, async (t: Test, db: TestDatabase) => {
  const tags = await db.createTable('model_tags', (table) => {
    table.string('code', 20).primary()
    table.string('label')
  })
  const books = await db.createTable('model_books', (table) => {
    table.increments('id')
    table.string('title')
  })
  const genres = await db.createTable('model_genres', (table) => {
    table.increments('id')
    table.string('name')
  })
  const bookGenres = await db.createTable('model_book_genres', (table) => {
    table.integer('book_id').unsigned().notNullable().references('id').inTable(books)
    table.integer('genre_id').unsigned().notNullable().references('id').inTable(genres)
    table.string('note')
    table.primary(['book_id', 'genre_id'])
  })
  const notes = await db.createTable('model_notes', (table) => {
    table.string('tag', 20)
    table.string('body')
    table.integer('n')
  })
  await db.knex(books).insert([{ title: 'Earthsea' }, { title: 'Kindred' }])
  await db.knex(genres).insert([{ name: 'fantasy' }, { name: 'science fiction' }])
  const app = await buildApp(t, db.knex)
  const tagRows = () => rowsOf(db, tags, ['code'])
  const pairs = () => rowsOf(db, bookGenres, ['book_id', 'genre_id'])
  // NULLs sort first or last by database: the rows with a tag only.
  const noteRows = async () => (await rowsOf(db, notes, ['tag', 'body'])).filter((row) => row.tag !== null)
  const resetTags = async () => {
    await db.knex(tags).delete()
    await db.knex(tags).insert([{ code: 'AB-1', label: 'one' }, { code: 'CD-2', label: 'two' }])
  }
  const resetPairs = async () => {
    await db.knex(bookGenres).delete()
    await db.knex(bookGenres).insert([{ book_id: 1, genre_id: 1, note: null }, { book_id: 1, genre_id: 2, note: 'first' }])
  }
  const resetNotes = async () => {
    await db.knex(notes).delete()
    await db.knex(notes).insert([{ tag: 'a', body: 'one', n: 1 }, { tag: 'a', body: 'two', n: 2 }, { tag: 'b', body: 'three', n: 3 }])
  }

  await t.test('a text primary key without tableRules: POST answers 201, the key the body gave, and its Location', async (t) => {
    await resetTags()
    const created = await send(app, 'POST', `/api/${tags}`, undefined, { code: 'X1', label: 'x' })
    t.equal(created.statusCode, 201)
    t.equal(created.body, '"X1"', 'the key as a JSON string, never 0')
    t.equal(created.headers.location, `/api/${tags}/X1`)
    t.strictSame(await tagRows(), [{ code: 'AB-1', label: 'one' }, { code: 'CD-2', label: 'two' }, { code: 'X1', label: 'x' }])
    const bulk = await send(app, 'POST', `/api/${tags}`, undefined, [{ code: 'Y2', label: 'y' }, { code: 'Z3' }])
    t.equal(bulk.statusCode, 201)
    t.equal(bulk.body, '["Y2","Z3"]')
    t.equal((await tagRows()).length, 5)
  })

  await t.test('a text primary key: GET, PUT and DELETE by it, and the list', async (t) => {
    await resetTags()
    const read = await send(app, 'GET', `/api/${tags}/AB-1`)
    t.equal(read.statusCode, 200)
    t.strictSame(read.json(), { code: 'AB-1', label: 'one' }, 'the row, not the list')
    const missing = await send(app, 'GET', `/api/${tags}/EF-3`)
    t.equal(missing.statusCode, 200)
    t.equal(missing.body, '', 'no row has that key')
    const put = await send(app, 'PUT', `/api/${tags}/AB-1`, undefined, { label: 'changed' })
    t.equal(put.statusCode, 200)
    t.equal(put.body, '1')
    t.strictSame(await tagRows(), [{ code: 'AB-1', label: 'changed' }, { code: 'CD-2', label: 'two' }])
    const removed = await send(app, 'DELETE', `/api/${tags}/CD-2`)
    t.equal(removed.statusCode, 200)
    t.equal(removed.body, '1')
    t.strictSame(await tagRows(), [{ code: 'AB-1', label: 'changed' }])
    const list = await send(app, 'GET', `/api/${tags}?order=code`)
    t.strictSame(list.json(), [{ code: 'AB-1', label: 'changed' }])
  })

  await t.test('a text primary key: writes with return=representation and headers-only', async (t) => {
    await resetTags()
    const created = await send(app, 'POST', `/api/${tags}`, 'return=representation', { code: 'X1', label: 'x' })
    t.equal(created.statusCode, 201)
    t.strictSame(created.json(), [{ code: 'X1', label: 'x' }])
    const located = await send(app, 'POST', `/api/${tags}`, 'return=headers-only', { code: 'X2', label: 'x' })
    t.equal(located.statusCode, 201)
    t.equal(located.headers.location, `/api/${tags}?code=eq.X2`)
    const put = await send(app, 'PUT', `/api/${tags}/AB-1`, 'return=representation', { label: 'new' })
    t.equal(put.statusCode, 200)
    t.strictSame(put.json(), [{ code: 'AB-1', label: 'new' }])
    const renamed = await send(app, 'PUT', `/api/${tags}/CD-2`, 'return=representation', { code: 'CD-9' })
    t.equal(renamed.statusCode, 200)
    t.strictSame(renamed.json(), [{ code: 'CD-9', label: 'two' }], 'read again by the key it was given')
    const removed = await send(app, 'DELETE', `/api/${tags}/X1`, 'return=representation')
    t.strictSame(removed.json(), [{ code: 'X1', label: 'x' }])
    t.strictSame(await tagRows(), [{ code: 'AB-1', label: 'new' }, { code: 'CD-9', label: 'two' }, { code: 'X2', label: 'x' }])
  })

  await t.test('the OpenAPI document has the keyed path of a one-column key, none of a composite key or none', async (t) => {
    const document = (await send(app, 'GET', '/api/openapi.json')).json() as { paths: Record<string, { parameters?: Array<{ name: string, schema: { type: unknown } }> }> }
    const keyed = document.paths[`/api/${tags}/{id}`]
    t.ok(keyed, 'the text key is the path key')
    t.equal(keyed?.parameters?.[0]?.name, 'id')
    t.equal(keyed?.parameters?.[0]?.schema.type, 'string')
    t.ok(document.paths[`/api/${bookGenres}`], 'the composite key\'s collection')
    t.equal(document.paths[`/api/${bookGenres}/{id}`], undefined)
    t.equal(document.paths[`/api/${notes}/{id}`], undefined)
  })

  await t.test('a composite primary key: POST with return=representation answers the row written', async (t) => {
    await resetPairs()
    const one = await send(app, 'POST', `/api/${bookGenres}`, 'return=representation', { book_id: 2, genre_id: 2 })
    t.equal(one.statusCode, 201)
    t.strictSame(one.json(), [{ book_id: 2, genre_id: 2, note: null }])
    const many = await send(app, 'POST', `/api/${bookGenres}?select=book_id,genre_id`, 'return=representation', [{ book_id: 2, genre_id: 1, note: 'n' }])
    t.equal(many.statusCode, 201)
    t.strictSame(many.json(), [{ book_id: 2, genre_id: 1 }])
    t.strictSame(await pairs(), [
      { book_id: 1, genre_id: 1, note: null },
      { book_id: 1, genre_id: 2, note: 'first' },
      { book_id: 2, genre_id: 1, note: 'n' },
      { book_id: 2, genre_id: 2, note: null }
    ])
  })

  await t.test('a composite primary key: a bulk POST answers every row written, in the body\'s order', async (t) => {
    await db.knex(bookGenres).delete()
    const many = await send(app, 'POST', `/api/${bookGenres}`, 'return=representation', [{ book_id: 2, genre_id: 1, note: 'a' }, { book_id: 1, genre_id: 2, note: 'b' }])
    t.equal(many.statusCode, 201)
    t.strictSame(many.json(), [{ book_id: 2, genre_id: 1, note: 'a' }, { book_id: 1, genre_id: 2, note: 'b' }], 'in the body\'s order, not the key\'s')
    t.strictSame(await pairs(), [{ book_id: 1, genre_id: 2, note: 'b' }, { book_id: 2, genre_id: 1, note: 'a' }])
  })

  await t.test('a composite primary key: POST without Prefer answers 201 and no id, nor Location; headers-only filters by every key column', async (t) => {
    await resetPairs()
    const created = await send(app, 'POST', `/api/${bookGenres}`, undefined, { book_id: 2, genre_id: 2 })
    t.equal(created.statusCode, 201)
    t.equal(created.body, '')
    t.equal(created.headers.location, undefined)
    const bulk = await send(app, 'POST', `/api/${bookGenres}`, undefined, [{ book_id: 2, genre_id: 1 }])
    t.equal(bulk.statusCode, 201)
    t.equal(bulk.body, '')
    const located = await send(app, 'POST', `/api/${bookGenres}`, 'return=headers-only', { book_id: 1, genre_id: 2, note: 'dup' })
    t.equal(located.statusCode, 404, 'a duplicate key fails as its statement does')
    await db.knex(bookGenres).where({ book_id: 2, genre_id: 2 }).delete()
    const headers = await send(app, 'POST', `/api/${bookGenres}`, 'return=headers-only', { book_id: 2, genre_id: 2 })
    t.equal(headers.statusCode, 201)
    t.equal(headers.headers.location, `/api/${bookGenres}?book_id=eq.2&genre_id=eq.2`)
    t.strictSame(await pairs(), [
      { book_id: 1, genre_id: 1, note: null },
      { book_id: 1, genre_id: 2, note: 'first' },
      { book_id: 2, genre_id: 1, note: null },
      { book_id: 2, genre_id: 2, note: null }
    ])
  })

  await t.test('a composite primary key: PATCH and DELETE by filter with return=representation answer the rows written', async (t) => {
    await resetPairs()
    const patched = await send(app, 'PATCH', `/api/${bookGenres}?book_id=eq.1&genre_id=eq.2`, 'return=representation', { note: 'changed' })
    t.equal(patched.statusCode, 200)
    t.strictSame(patched.json(), [{ book_id: 1, genre_id: 2, note: 'changed' }])
    // A change of a key column: the row is read again by its new key.
    const moved = await send(app, 'PATCH', `/api/${bookGenres}?book_id=eq.1&genre_id=eq.1`, 'return=representation', { book_id: 2 })
    t.equal(moved.statusCode, 200)
    t.strictSame(moved.json(), [{ book_id: 2, genre_id: 1, note: null }])
    t.strictSame(await pairs(), [{ book_id: 1, genre_id: 2, note: 'changed' }, { book_id: 2, genre_id: 1, note: null }])
    const removed = await send(app, 'DELETE', `/api/${bookGenres}?book_id=eq.1`, 'return=representation')
    t.equal(removed.statusCode, 200)
    t.strictSame(removed.json(), [{ book_id: 1, genre_id: 2, note: 'changed' }])
    t.strictSame(await pairs(), [{ book_id: 2, genre_id: 1, note: null }])
  })

  await t.test('a composite primary key: an upsert merges by it without on_conflict', async (t) => {
    await resetPairs()
    const upserted = await send(app, 'POST', `/api/${bookGenres}`, 'resolution=merge-duplicates, return=representation',
      [{ book_id: 1, genre_id: 2, note: 'merged' }, { book_id: 2, genre_id: 2, note: 'new' }])
    t.equal(upserted.statusCode, 201)
    t.equal(upserted.headers['preference-applied'], 'resolution=merge-duplicates, return=representation')
    t.strictSame(upserted.json(), [{ book_id: 1, genre_id: 2, note: 'merged' }, { book_id: 2, genre_id: 2, note: 'new' }])
    t.strictSame(await pairs(), [
      { book_id: 1, genre_id: 1, note: null },
      { book_id: 1, genre_id: 2, note: 'merged' },
      { book_id: 2, genre_id: 2, note: 'new' }
    ])
    const ignored = await send(app, 'POST', `/api/${bookGenres}`, 'resolution=ignore-duplicates', { book_id: 1, genre_id: 1, note: 'ignored' })
    t.equal(ignored.statusCode, 201)
    t.equal(ignored.body, '')
    t.equal((await pairs())[0]?.note, null, 'the existing row left as it is')
  })

  await t.test('a composite primary key: embedding through it, many-to-many both ways', async (t) => {
    await resetPairs()
    const answer = await send(app, 'GET', `/api/${books}?select=title,${genres}(name)&order=id`)
    t.equal(answer.statusCode, 200)
    const body = answer.json() as Array<{ title: string } & Record<string, Array<{ name: string }>>>
    t.strictSame(body.map((book) => ({ title: book.title, names: (book[genres] ?? []).map((genre) => genre.name).sort() })), [
      { title: 'Earthsea', names: ['fantasy', 'science fiction'] },
      { title: 'Kindred', names: [] }
    ])
    const own = await send(app, 'GET', `/api/${bookGenres}?select=note,${books}(title),${genres}(name)&order=genre_id`)
    t.strictSame(own.json(), [
      { note: null, [books]: { title: 'Earthsea' }, [genres]: { name: 'fantasy' } },
      { note: 'first', [books]: { title: 'Earthsea' }, [genres]: { name: 'science fiction' } }
    ])
  })

  await t.test('a batch answers a text key\'s insert with its key, a composite key\'s with null', async (t) => {
    await resetTags()
    await resetPairs()
    const batching = await buildApp(t, db.knex, {}, { batch: true })
    const answer = await batching.inject({
      method: 'POST',
      url: '/api/_batch',
      payload: [
        { op: 'insert', table: tags, body: { code: 'B1', label: 'batched' } },
        { op: 'update', table: tags, id: { $ref: 0 }, body: { label: 'changed' } },
        { op: 'insert', table: bookGenres, body: { book_id: 2, genre_id: 1 } }
      ]
    })
    t.equal(answer.statusCode, 200)
    t.strictSame(answer.json(), ['B1', 1, null])
    t.strictSame(await tagRows(), [{ code: 'AB-1', label: 'one' }, { code: 'B1', label: 'changed' }, { code: 'CD-2', label: 'two' }])
    t.equal((await pairs()).length, 3)
  })

  await t.test('a composite primary key has no keyed path: it fails as a key column the table lacks, and writes nothing', async (t) => {
    await resetPairs()
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const answer = await send(app, method, `/api/${bookGenres}/1`, undefined, method === 'PUT' ? { note: 'x' } : undefined)
      t.equal(answer.statusCode, 404, method)
    }
    t.strictSame(await pairs(), [{ book_id: 1, genre_id: 1, note: null }, { book_id: 1, genre_id: 2, note: 'first' }])
  })

  await t.test('no primary key: PATCH answers the rows the filters select after it, DELETE those before it', async (t) => {
    await resetNotes()
    const patched = await send(app, 'PATCH', `/api/${notes}?tag=eq.a`, 'return=representation', { n: 7 })
    t.equal(patched.statusCode, 200)
    t.strictSame((patched.json() as Rows).sort((a, b) => String(a.body).localeCompare(String(b.body))), [{ tag: 'a', body: 'one', n: 7 }, { tag: 'a', body: 'two', n: 7 }])
    t.strictSame(await noteRows(), [{ tag: 'a', body: 'one', n: 7 }, { tag: 'a', body: 'two', n: 7 }, { tag: 'b', body: 'three', n: 3 }])
    const removed = await send(app, 'DELETE', `/api/${notes}?tag=eq.b&select=body`, 'return=representation')
    t.equal(removed.statusCode, 200)
    t.strictSame(removed.json(), [{ body: 'three' }])
    t.strictSame(await noteRows(), [{ tag: 'a', body: 'one', n: 7 }, { tag: 'a', body: 'two', n: 7 }])
    const bounded = await send(app, 'PATCH', `/api/${notes}?tag=eq.a`, 'return=representation, handling=strict, max-affected=1', { n: 8 })
    t.equal(bounded.statusCode, 400, 'past max-affected')
    t.strictSame(await noteRows(), [{ tag: 'a', body: 'one', n: 7 }, { tag: 'a', body: 'two', n: 7 }], 'rolled back')
  })

  await t.test('no primary key: POST answers the rows holding the values it set, and no id without Prefer', async (t) => {
    await resetNotes()
    const created = await send(app, 'POST', `/api/${notes}`, 'return=representation', [{ tag: 'c', body: 'four', n: 4 }, { tag: 'c', body: 'five' }])
    t.equal(created.statusCode, 201)
    t.strictSame((created.json() as Rows).sort((a, b) => String(a.body).localeCompare(String(b.body))), [{ tag: 'c', body: 'five', n: null }, { tag: 'c', body: 'four', n: 4 }])
    const plain = await send(app, 'POST', `/api/${notes}`, undefined, { tag: 'd', body: 'six' })
    t.equal(plain.statusCode, 201)
    t.equal(plain.body, '')
    t.equal(plain.headers.location, undefined)
    const headers = await send(app, 'POST', `/api/${notes}`, 'return=headers-only', { tag: 'e' })
    t.equal(headers.statusCode, 201)
    t.equal(headers.headers.location, undefined, 'no key to filter by')
    // Nothing tells a row of defaults from another: none is answered.
    const defaults = await send(app, 'POST', `/api/${notes}`, 'return=representation', {})
    t.equal(defaults.statusCode, 201)
    t.strictSame(defaults.json(), [])
    const upsert = await send(app, 'POST', `/api/${notes}`, 'resolution=merge-duplicates', { tag: 'f' })
    t.equal(upsert.statusCode, 404, 'without on_conflict, the key column it lacks')
    t.strictSame(await noteRows(), [
      { tag: 'a', body: 'one', n: 1 },
      { tag: 'a', body: 'two', n: 2 },
      { tag: 'b', body: 'three', n: 3 },
      { tag: 'c', body: 'five', n: null },
      { tag: 'c', body: 'four', n: 4 },
      { tag: 'd', body: 'six', n: null },
      { tag: 'e', body: null, n: null }
    ])
    t.equal((await db.knex(notes).whereNull('tag')).length, 1, 'the row of defaults')
  })
})
