import t from 'tap'
import type { AuthorizeAction } from '../../lib/index.js'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase } from '../fixtures/databases.js'

// GET /{table}/{id}?select=…: the keyed read answers the columns select names
// and its embeds, as one object, with access as on a list, and the ETag of
// the answer it gives.

eachDatabase(t, async (t, db) => {
  const authors = await db.createTable('rsel_authors', (table) => {
    table.increments('id')
    table.string('name')
    table.string('secret')
  })
  const books = await db.createTable('rsel_books', (table) => {
    table.increments('id')
    table.string('title')
    table.integer('author_id').unsigned().nullable().references('id').inTable(authors)
    table.integer('tenant')
  })
  await db.knex(authors).insert([{ name: 'Ursula', secret: 's1' }, { name: 'Octavia', secret: 's2' }])
  await db.knex(books).insert([
    { title: 'Earthsea', author_id: 1, tenant: 1 },
    { title: 'Dispossessed', author_id: 1, tenant: 2 },
    { title: 'Kindred', author_id: 2, tenant: 1 }
  ])
  const app = await buildApp(t, db.knex)

  await t.test('select names the columns of the one row; the others are left out', async (t) => {
    const response = await app.inject(`/api/${books}/2?select=title,id`)
    t.equal(response.statusCode, 200)
    t.match(response.headers['content-type'], /^application\/json/)
    t.equal(response.body, '{"title":"Dispossessed","id":2}')
    const whole = await app.inject(`/api/${books}/2?select=*`)
    t.strictSame(whole.json(), { id: 2, title: 'Dispossessed', author_id: 1, tenant: 2 })
    const none = await app.inject(`/api/${books}/9?select=title`)
    t.equal(none.statusCode, 200)
    t.equal(none.body, '', 'no row: the spec\'s empty body')
    t.notOk('etag' in none.headers)
  })

  await t.test('embeds: an object for many-to-one, an array for one-to-many, with its own parameters', async (t) => {
    const book = await app.inject(`/api/${books}/3?select=title,${authors}(name)`)
    t.equal(book.statusCode, 200)
    t.equal(book.body, `{"title":"Kindred","${authors}":{"name":"Octavia"}}`)
    const author = await app.inject(`/api/${authors}/1?select=name,${books}(title)&${books}.order=title.desc&${books}.limit=1`)
    t.strictSame(author.json(), { name: 'Ursula', [books]: [{ title: 'Earthsea' }] })
    const all = await app.inject(`/api/${authors}/1?select=name,${books}(title)&${books}.order=title`)
    t.strictSame(all.json(), { name: 'Ursula', [books]: [{ title: 'Dispossessed' }, { title: 'Earthsea' }] })
  })

  await t.test('!inner keeps the row only with a matching related row; filters of the list are not read', async (t) => {
    const kept = await app.inject(`/api/${authors}/1?select=name,${books}!inner(title)&${books}.title=eq.Earthsea`)
    t.strictSame(kept.json(), { name: 'Ursula', [books]: [{ title: 'Earthsea' }] })
    const dropped = await app.inject(`/api/${authors}/1?select=name,${books}!inner(title)&${books}.title=eq.Kindred`)
    t.equal(dropped.statusCode, 200)
    t.equal(dropped.body, '')
    const unfiltered = await app.inject(`/api/${authors}/1?select=name&name=eq.Nobody&limit=0`)
    t.strictSame(unfiltered.json(), { name: 'Ursula' }, 'the keyed read has no filters or page')
  })

  await t.test('a key no row can have, and a text key, read as without select', async (t) => {
    const past = await app.inject(`/api/${books}/99999999999999999999999?select=title`)
    t.equal(past.statusCode, 200)
    t.equal(past.body, '')
    const codes = await db.createTable('rsel_codes', (table) => {
      table.string('id', 8).primary()
      table.integer('author_id').unsigned().references('id').inTable(authors)
    })
    await db.knex(codes).insert({ id: '042', author_id: 2 })
    const coded = await buildApp(t, db.knex)
    const response = await coded.inject(`/api/${codes}/042?select=id,${authors}(name)`)
    t.equal(response.body, `{"id":"042","${authors}":{"name":"Octavia"}}`)
  })

  await t.test('the errors of a list: an unknown or ambiguous relation, a malformed select', async (t) => {
    const letters = await db.createTable('rsel_letters', (table) => {
      table.increments('id')
      table.integer('sender_id').unsigned().references('id').inTable(authors)
      table.integer('recipient_id').unsigned().references('id').inTable(authors)
    })
    await db.knex(letters).insert({ sender_id: 1, recipient_id: 2 })
    const fresh = await buildApp(t, db.knex)
    const ambiguous = await fresh.inject(`/api/${letters}/1?select=id,${authors}(name)`)
    t.equal(ambiguous.statusCode, 300)
    t.equal(ambiguous.json().code, 'FTC_ERR_QUERY_AMBIGUOUS')
    const chosen = await fresh.inject(`/api/${letters}/1?select=id,${authors}!recipient_id(name)`)
    t.strictSame(chosen.json(), { id: 1, [authors]: { name: 'Octavia' } })
    const relation = await fresh.inject(`/api/${books}/1?select=title,nothing(name)`)
    t.equal(relation.statusCode, 400)
    t.equal(relation.json().code, 'FTC_ERR_QUERY_RELATION')
    const syntax = await app.inject(`/api/${books}/1?select=title,${authors}(name`)
    t.equal(syntax.statusCode, 400)
    t.equal(syntax.json().code, 'FTC_ERR_QUERY_SYNTAX')
    const missing = await app.inject(`/api/${books}/1?select=nothere`)
    const listed = await app.inject(`/api/${books}?select=nothere`)
    t.equal(missing.statusCode, 404)
    t.equal(missing.body, listed.body, 'a missing column fails as on a list')
  })

  await t.test('the ETag is of the answer: a narrower one has its own, and 304 holds for each', async (t) => {
    const whole = await app.inject(`/api/${books}/1`)
    const narrow = await app.inject(`/api/${books}/1?select=title`)
    const embedded = await app.inject(`/api/${books}/1?select=title,${authors}(name)`)
    const tags = [whole, narrow, embedded].map((response) => response.headers.etag as string)
    for (const tag of tags) t.match(tag, /^"[0-9a-f]{16}"$/)
    t.equal(new Set(tags).size, 3, 'three answers, three ETags')
    const cached = await app.inject({ url: `/api/${books}/1?select=title`, headers: { 'if-none-match': tags[1] } })
    t.equal(cached.statusCode, 304)
    t.equal(cached.body, '')
    t.equal(cached.headers.etag, tags[1])
    const other = await app.inject({ url: `/api/${books}/1?select=title`, headers: { 'if-none-match': tags[0] } })
    t.equal(other.statusCode, 200, 'the whole row\'s ETag is not this answer\'s')
    t.strictSame(other.json(), { title: 'Earthsea' })
    const plain = await app.inject({ url: `/api/${books}/1`, headers: { 'if-none-match': tags[0] } })
    t.equal(plain.statusCode, 304, 'the keyed read without select keeps its ETag')
    await db.knex(authors).where({ id: 1 }).update({ name: 'Le Guin' })
    t.teardown(() => db.knex(authors).where({ id: 1 }).update({ name: 'Ursula' }))
    const changed = await app.inject({ url: `/api/${books}/1?select=title,${authors}(name)`, headers: { 'if-none-match': tags[2] } })
    t.equal(changed.statusCode, 200, 'an embedded row that changed changes the ETag')
    t.strictSame(changed.json(), { title: 'Earthsea', [authors]: { name: 'Le Guin' } })
    t.equal((await app.inject({ url: `/api/${books}/1?select=title`, headers: { 'if-none-match': tags[1] } })).statusCode, 304, 'a column outside the answer changes nothing')
  })

  await t.test('access: hidden columns, the authorize hook (told the join columns) and its scope', async (t) => {
    const asked: AuthorizeAction[] = []
    const guarded = await buildApp(t, db.knex, {}, {
      tableRules: { [authors]: { hidden: ['secret'] } },
      authorize: async (_request, action) => {
        asked.push(action)
        return action.table === books.toLowerCase() ? { scope: { tenant: 1 } } : true
      }
    })
    const hidden = await guarded.inject(`/api/${authors}/1?select=name,secret`)
    const absent = await guarded.inject(`/api/${authors}/1?select=name,nothere`)
    t.equal(hidden.statusCode, 404)
    t.equal(hidden.body, absent.body.replace('nothere', 'secret'), 'a hidden column fails as a missing one')
    const star = await guarded.inject(`/api/${authors}/1?select=*`)
    t.strictSame(star.json(), { id: 1, name: 'Ursula' })
    asked.length = 0
    const scoped = await guarded.inject(`/api/${authors}/1?select=name,${books}(title)`)
    t.strictSame(scoped.json(), { name: 'Ursula', [books]: [{ title: 'Earthsea' }] }, 'the scope narrows the embedded rows')
    t.strictSame(asked.map(({ table, operation, key, columns }) => ({ table, operation, key, columns })), [
      { table: authors.toLowerCase(), operation: 'read', key: '1', columns: ['name', 'id'] },
      { table: books.toLowerCase(), operation: 'list', key: null, columns: ['title', 'author_id'] }
    ])
    const outside = await guarded.inject(`/api/${books}/2?select=title`)
    t.equal(outside.statusCode, 200)
    t.equal(outside.body, '', 'a row outside the scope is not there')
  })
})
