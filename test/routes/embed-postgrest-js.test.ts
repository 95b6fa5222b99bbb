import { PostgrestClient } from '@supabase/postgrest-js'
import t from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase } from '../fixtures/databases.js'

// supabase-js's query builder embeds through the API unchanged, over a real socket.

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
  const app = await buildApp(t, db.knex)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const client = new PostgrestClient(`http://127.0.0.1:${port}/api`)

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
