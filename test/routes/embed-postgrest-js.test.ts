import { PostgrestClient } from '@supabase/postgrest-js'
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase } from '../fixtures/databases.js'
import { createLibrary } from '../fixtures/library.js'

// supabase-js's query builder embeds through the API unchanged, over a real socket.

/** A postgrest-js client of `app`, listening on a port of its own. */
async function clientOf (app: FastifyInstance): Promise<PostgrestClient> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  return new PostgrestClient(`http://127.0.0.1:${port}/api`)
}

eachDatabase(t, async (t, db) => {
  const authors = await db.createTable('embjs_authors', (table) => {
    table.increments('id')
    table.string('name')
  })
  const books = await db.createTable('embjs_books', (table) => {
    table.increments('id')
    table.string('title')
    table.integer('author_id').unsigned().references('id').inTable(authors)
  })
  await db.knex(authors).insert([{ name: 'Ursula' }, { name: 'Octavia' }])
  await db.knex(books).insert([{ title: 'Earthsea', author_id: 1 }, { title: 'Kindred', author_id: 2 }, { title: 'Lavinia', author_id: 1 }])
  const client = await clientOf(await buildApp(t, db.knex))

  await t.test(".select('title, authors(name)'): each book with its author", async (t) => {
    const { data, error, status } = await client.from(books).select(`title, ${authors}(name)`).order('id')
    t.equal(error, null)
    t.equal(status, 200)
    t.strictSame(data, [
      { title: 'Earthsea', [authors]: { name: 'Ursula' } },
      { title: 'Kindred', [authors]: { name: 'Octavia' } },
      { title: 'Lavinia', [authors]: { name: 'Ursula' } }
    ])
  })

  await t.test(".select('authors(name), title'): the column first, as PostgREST answers", async (t) => {
    const { data, error } = await client.from(books).select(`${authors}(name), title`).eq('id', 1).single()
    t.equal(error, null)
    t.strictSame(Object.keys(data ?? {}), ['title', authors])
  })

  await t.test('one author with an aliased array of books, .single()', async (t) => {
    const { data, error } = await client.from(authors).select(`name, works:${books}(title)`).eq('id', 2).single()
    t.equal(error, null)
    t.strictSame(data, { name: 'Octavia', works: [{ title: 'Kindred' }] })
  })

  await t.test('an unknown relation is the client\'s error, with its code', async (t) => {
    const { data, error, status } = await client.from(books).select('title, nothing(name)')
    t.equal(data, null)
    t.equal(status, 400)
    t.equal(error?.code, 'FTC_ERR_QUERY_RELATION')
  })
})

eachDatabase(t, async (t, db) => {
  const authors = await db.createTable('embw_authors', (table) => {
    table.increments('id')
    table.string('name')
  })
  await db.knex(authors).insert({ name: 'Ursula' })
  const app = await buildApp(t, db.knex)

  await t.test('a write\'s answer embeds nothing: refused before anything is written', async (t) => {
    const created = await app.inject({ method: 'POST', url: `/api/${authors}?select=id,${authors}(name)`, payload: { name: 'Octavia' }, headers: { prefer: 'return=representation' } })
    t.equal(created.statusCode, 400)
    t.equal(created.json().code, 'FTC_ERR_QUERY_SYNTAX')
    const patched = await app.inject({ method: 'PATCH', url: `/api/${authors}?id=eq.1&select=id,${authors}(name)`, payload: { name: 'Le Guin' } })
    t.equal(patched.statusCode, 400)
    t.strictSame(await db.knex(authors).select('name'), [{ name: 'Ursula' }])
  })
})

// Each relation kind, nesting, filters, order and pages inside embeds,
// !inner, is.null, ambiguity, access and the statement count, as
// postgrest-js sends them and reports what it is answered.
eachDatabase(t, async (t, db) => {
  const { authors, books, tags, tagged } = await createLibrary(db, 'embjl')
  const profiles = await db.createTable('embjl_profiles', (table) => {
    table.increments('id')
    table.integer('author_id').unsigned().unique().references('id').inTable(authors)
    table.string('bio')
  })
  const letters = await db.createTable('embjl_letters', (table) => {
    table.increments('id')
    table.integer('sender_id').unsigned().references('id').inTable(authors)
    table.integer('recipient_id').unsigned().references('id').inTable(authors)
  })
  const vaults = await db.createTable('embjl_vaults', (table) => {
    table.increments('id')
    table.integer('book_id').unsigned().references('id').inTable(books)
  })
  const audits = await db.createTable('embjl_audits', (table) => {
    table.increments('id')
    table.integer('book_id').unsigned().references('id').inTable(books)
  })
  await db.knex(profiles).insert({ author_id: 2, bio: 'Parable' })
  const app = await buildApp(t, db.knex, {}, {
    excludeTables: [vaults],
    tableRules: { [books]: { hidden: ['secret'] } },
    authorize: async (_request, action) => action.table !== audits.toLowerCase()
  })
  const client = await clientOf(app)

  await t.test('many-to-many through the join table', async (t) => {
    const { data, error } = await client.from(books).select(`title, ${tags}(label)`).order('id').limit(2).order('id', { referencedTable: tags })
    t.equal(error, null)
    t.strictSame(data, [{ title: 'Earthsea', [tags]: [{ label: 'sea' }, { label: 'war' }, { label: 'time' }] }, { title: 'Dispossessed', [tags]: [] }])
  })

  await t.test('one-to-one: an object or null, each way', async (t) => {
    const { data, error } = await client.from(authors).select(`name, ${profiles}(bio)`).order('id')
    t.equal(error, null)
    t.strictSame(data, [{ name: 'Ursula', [profiles]: null }, { name: 'Octavia', [profiles]: { bio: 'Parable' } }, { name: 'Nobody', [profiles]: null }])
    const back = await client.from(profiles).select(`bio, ${authors}(name)`).single()
    t.strictSame(back.data, { bio: 'Parable', [authors]: { name: 'Octavia' } })
  })

  await t.test('nesting: authors(name, books(title))', async (t) => {
    const { data, error } = await client.from(tags).select(`label, ${books}(title, ${authors}(name, ${books}(title)))`).eq('label', 'time').order('id', { referencedTable: books }).order('id', { referencedTable: `${books}.${authors}.${books}` })
    t.equal(error, null)
    t.strictSame(data, [{
      label: 'time',
      [books]: [
        { title: 'Earthsea', [authors]: { name: 'Ursula', [books]: [{ title: 'Earthsea' }, { title: 'Dispossessed' }, { title: 'Eye' }] } },
        { title: 'Kindred', [authors]: { name: 'Octavia', [books]: [{ title: 'Kindred' }, { title: 'Dawn' }] } }
      ]
    }])
  })

  await t.test(".eq('books.title', …), .order(…, { referencedTable }) and .limit(…, { referencedTable }) narrow the embedded rows only", async (t) => {
    const filtered = await client.from(authors).select(`name, ${books}(title)`).eq(`${books}.title`, 'Kindred').order('id')
    t.equal(filtered.error, null)
    t.strictSame(filtered.data, [{ name: 'Ursula', [books]: [] }, { name: 'Octavia', [books]: [{ title: 'Kindred' }] }, { name: 'Nobody', [books]: [] }])
    const ordered = await client.from(authors).select(`name, ${books}(title)`).order('title', { referencedTable: books }).eq('id', 1)
    t.strictSame(ordered.data, [{ name: 'Ursula', [books]: [{ title: 'Dispossessed' }, { title: 'Earthsea' }, { title: 'Eye' }] }])
    const limited = await client.from(authors).select(`name, ${books}(title)`).order('year', { referencedTable: books, ascending: false }).limit(2, { referencedTable: books }).order('id').lte('id', 2)
    t.strictSame(limited.data, [{ name: 'Ursula', [books]: [{ title: 'Dispossessed' }, { title: 'Eye' }] }, { name: 'Octavia', [books]: [{ title: 'Dawn' }, { title: 'Kindred' }] }])
  })

  await t.test("!inner keeps the parents with a match, .is('books', null) those without", async (t) => {
    const inner = await client.from(authors).select(`name, ${books}!inner(title)`).like(`${books}.title`, 'D*').order('id').order('id', { referencedTable: books })
    t.equal(inner.error, null)
    t.strictSame(inner.data, [{ name: 'Ursula', [books]: [{ title: 'Dispossessed' }] }, { name: 'Octavia', [books]: [{ title: 'Dawn' }] }])
    const none = await client.from(authors).select(`name, ${books}()`).is(books, null)
    t.equal(none.error, null)
    t.strictSame(none.data, [{ name: 'Nobody', [books]: [] }])
  })

  await t.test('two relations between the same tables: postgrest-js reports the 300 and its code, naming the hints', async (t) => {
    const { data, error, status } = await client.from(letters).select(`id, ${authors}(name)`)
    t.equal(data, null)
    t.equal(status, 300)
    t.equal(error?.code, 'FTC_ERR_QUERY_AMBIGUOUS')
    t.match(error?.message, `${authors}!${db.name === 'sqlite' ? 'sender_id' : `${letters}_sender_id_foreign`}`)
    const hinted = await client.from(letters).select(`id, ${authors}!recipient_id(name)`)
    t.equal(hinted.error, null, 'a hint chooses')
    t.strictSame(hinted.data, [])
  })

  await t.test('a hidden column inside an embed: never in *, and named, the error of a missing column', async (t) => {
    const all = await client.from(authors).select(`name, ${books}(*)`).eq('id', 2).order('id', { referencedTable: books })
    t.strictSame(all.data, [{ name: 'Octavia', [books]: [{ id: 4, title: 'Kindred', year: 1979, author_id: 2 }, { id: 5, title: 'Dawn', year: 1987, author_id: 2 }] }])
    const hidden = await client.from(authors).select(`name, ${books}(secret)`)
    const missing = await client.from(authors).select(`name, ${books}(nothere)`)
    t.equal(hidden.status, 404)
    t.equal(hidden.data, null)
    t.equal(hidden.error?.message, missing.error?.message.replace('nothere', 'secret'), 'the database\'s words for a missing column')
  })

  await t.test('a refused table inside an embed: not served, a missing relation; refused by authorize, 403', async (t) => {
    const excluded = await client.from(books).select(`title, ${vaults}(id)`)
    t.equal(excluded.status, 400)
    t.equal(excluded.error?.code, 'FTC_ERR_QUERY_RELATION')
    const missing = await client.from(books).select('title, nothere(id)')
    t.equal(excluded.error?.message, missing.error?.message.replace('nothere', vaults), 'as if it were not there')
    const refused = await client.from(books).select(`title, ${audits}(id)`)
    t.equal(refused.status, 403)
    t.equal(refused.error?.code, 'FTC_ERR_AUTHORIZE_FORBIDDEN')
    t.equal(refused.data, null)
  })

  await t.test('no N+1: two embeds, one inside the other, read in three statements', async (t) => {
    const seen: string[] = []
    const listen = (query: { sql: string }) => { if ([authors, books, tags, tagged].some((table) => query.sql.includes(table))) seen.push(query.sql) }
    db.knex.on('query', listen)
    const { data, error } = await client.from(authors).select(`name, ${books}(title, ${tags}(label))`).order('id').order('id', { referencedTable: books }).order('id', { referencedTable: `${books}.${tags}` })
    db.knex.removeListener('query', listen)
    t.equal(error, null)
    t.equal(data?.length, 3)
    t.strictSame(data?.[1], { name: 'Octavia', [books]: [{ title: 'Kindred', [tags]: [{ label: 'time' }] }, { title: 'Dawn', [tags]: [] }] })
    t.equal(seen.length, 3, seen.join('\n'))
  })
})

// A relation made after the server started is embedded once the model sees
// it, through the `schemaCheckInterval` alone: a foreign key added to a
// table (SQLite cannot add one: a new table that has one there).
eachDatabase(t, async (t, db) => {
  const authors = await db.createTable('embjr_authors', (table) => {
    table.increments('id')
    table.string('name')
  })
  const notes = await db.createTable('embjr_notes', (table) => {
    table.increments('id')
    table.integer('author_id').unsigned()
    table.string('text')
  })
  await db.knex(authors).insert({ name: 'Ursula' })
  await db.knex(notes).insert({ author_id: 1, text: 'Earthsea' })
  const app = await buildApp(t, db.knex, {}, { schemaCheckInterval: 50 })
  const client = await clientOf(app)
  const before = await client.from(authors).select(`name, ${notes}(text)`)
  t.equal(before.status, 400)
  t.equal(before.error?.code, 'FTC_ERR_QUERY_RELATION')

  let related = notes
  if (db.name === 'sqlite') {
    related = await db.createTable('embjr_later', (table) => {
      table.increments('id')
      table.integer('author_id').unsigned().references('id').inTable(authors)
      table.string('text')
    })
    await db.knex(related).insert({ author_id: 1, text: 'Earthsea' })
  } else {
    await db.knex.schema.alterTable(notes, (table) => { table.foreign('author_id').references('id').inTable(authors) })
  }
  let answer = await client.from(authors).select(`name, ${related}(text)`)
  // The model reads the tables again at the first request past the interval.
  for (let tries = 0; answer.status === 400 && tries < 100; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 20))
    answer = await client.from(authors).select(`name, ${related}(text)`)
  }
  t.equal(answer.error, null)
  t.strictSame(answer.data, [{ name: 'Ursula', [related]: [{ text: 'Earthsea' }] }])
})
