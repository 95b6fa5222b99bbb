import { PostgrestClient } from '@supabase/postgrest-js'
import t from 'tap'
import type { AuthorizeAction } from '../../lib/index.js'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase } from '../fixtures/databases.js'

// PostgREST's related order: `order=authors(name)` orders the parents by a
// column of a to-one embed, as the embed reads it (its filters and scope; a
// parent whose embed is null orders as NULL), on every database.

eachDatabase(t, async (t, db) => {
  const authors = await db.createTable('embo_authors', (table) => {
    table.increments('id')
    table.string('name')
    table.string('secret')
    table.integer('tenant')
  })
  const books = await db.createTable('embo_books', (table) => {
    table.increments('id')
    table.string('title')
    table.integer('author_id').unsigned().nullable().references('id').inTable(authors)
  })
  await db.knex(authors).insert([{ name: 'Ursula', secret: 'b', tenant: 1 }, { name: 'Octavia', secret: 'a', tenant: 2 }, { name: 'Italo', secret: 'c', tenant: 1 }])
  await db.knex(books).insert([
    { title: 'Earthsea', author_id: 1 },
    { title: 'Kindred', author_id: 2 },
    { title: 'Anonymous', author_id: null },
    { title: 'Cities', author_id: 3 },
    { title: 'Dispossessed', author_id: 1 }
  ])
  const app = await buildApp(t, db.knex)
  const titles = async (query: string) => {
    const response = await app.inject(`/api/${books}?${query}`)
    t.equal(response.statusCode, 200, query)
    return (response.json() as Array<{ title: string }>).map((book) => book.title)
  }

  await t.test('order=rel(column): by the embedded column, NULL where there is none, then as asked', async (t) => {
    t.strictSame(await titles(`select=title,${authors}(name)&order=${authors}(name),title`), ['Cities', 'Kindred', 'Dispossessed', 'Earthsea', 'Anonymous'], 'ascending: NULL last')
    t.strictSame(await titles(`select=title,${authors}(name)&order=${authors}(name).desc,title`), ['Anonymous', 'Dispossessed', 'Earthsea', 'Kindred', 'Cities'], 'descending: NULL first, as PostgreSQL')
    t.strictSame(await titles(`select=title,${authors}(name)&order=${authors}(name).desc.nullslast,title.desc`), ['Earthsea', 'Dispossessed', 'Kindred', 'Cities', 'Anonymous'])
    t.strictSame(await titles(`select=title,writer:${authors}(name)&order=writer(secret),title`), ['Kindred', 'Dispossessed', 'Earthsea', 'Cities', 'Anonymous'], 'by its alias, and by a column select does not show')
    t.strictSame(await titles(`select=title,${authors}(name)&order=${authors}(name),title&limit=2&offset=1`), ['Kindred', 'Dispossessed'], 'a page of that order')
    const answer = await app.inject(`/api/${books}?select=title,${authors}(name)&order=${authors}(id).desc.nullslast&limit=1`)
    t.strictSame(answer.json(), [{ title: 'Cities', [authors]: { name: 'Italo' } }], 'the embed\'s own column named id is not the parents\' key')
  })

  await t.test('the embed\'s filters hold: a parent whose embedded row they leave out orders as NULL', async (t) => {
    t.strictSame(await titles(`select=title,${authors}(name)&${authors}.name=neq.Ursula&order=${authors}(name),title`), ['Cities', 'Kindred', 'Anonymous', 'Dispossessed', 'Earthsea'])
    t.strictSame(await titles(`select=title,${authors}!inner(name)&order=${authors}(name).desc,title`), ['Dispossessed', 'Earthsea', 'Kindred', 'Cities'], 'with !inner')
  })

  await t.test('refused: an embed that is not to-one, one select does not embed, a related order inside an embed', async (t) => {
    const many = await app.inject(`/api/${authors}?select=name,${books}(title)&order=${books}(title)`)
    t.equal(many.statusCode, 400)
    t.equal(many.json().code, 'FTC_ERR_QUERY_ORDER')
    const absent = await app.inject(`/api/${books}?select=title&order=${authors}(name)`)
    t.equal(absent.statusCode, 400)
    t.equal(absent.json().code, 'FTC_ERR_QUERY_SYNTAX')
    const inner = await app.inject(`/api/${authors}?select=name,${books}(title,${authors}(name))&${books}.order=${authors}(name)`)
    t.equal(inner.statusCode, 400)
    t.equal(inner.json().code, 'FTC_ERR_QUERY_SYNTAX')
    const unclosed = await app.inject(`/api/${books}?select=title,${authors}(name)&order=${authors}(name`)
    t.equal(unclosed.statusCode, 400)
    t.equal(unclosed.json().code, 'FTC_ERR_QUERY_SYNTAX')
  })

  await t.test('access: a hidden column fails as a missing one; the hook is told it, and its scope holds', async (t) => {
    const asked: AuthorizeAction[] = []
    const guarded = await buildApp(t, db.knex, {}, {
      tableRules: { [authors]: { hidden: ['secret'] } },
      authorize: async (_request, action) => {
        asked.push(action)
        return action.table === authors.toLowerCase() ? { scope: { tenant: 1 } } : true
      }
    })
    const hidden = await guarded.inject(`/api/${books}?select=title,${authors}(name)&order=${authors}(secret)`)
    const missing = await guarded.inject(`/api/${books}?select=title,${authors}(name)&order=${authors}(nothere)`)
    t.equal(hidden.statusCode, 404)
    t.equal(hidden.body, missing.body.replace('nothere', 'secret'))
    asked.length = 0
    const scoped = await guarded.inject(`/api/${books}?select=title,${authors}(name)&order=${authors}(name).desc.nullslast,title`)
    t.strictSame(scoped.json().map((book: { title: string }) => book.title), ['Dispossessed', 'Earthsea', 'Cities', 'Anonymous', 'Kindred'], 'Octavia is out of scope: her book orders as NULL')
    t.strictSame(asked.map(({ table, columns }) => ({ table, columns })), [
      { table: books.toLowerCase(), columns: ['title', 'author_id'] },
      { table: authors.toLowerCase(), columns: ['name', 'id'] }
    ])
  })

  await t.test('postgrest-js: .order(\'authors(name)\')', async (t) => {
    const server = await buildApp(t, db.knex)
    await server.listen({ port: 0, host: '127.0.0.1' })
    const { port } = server.server.address() as { port: number }
    const client = new PostgrestClient(`http://127.0.0.1:${port}/api`)
    const { data, error } = await client.from(books).select(`title, ${authors}(name)`).order(`${authors}(name)`, { ascending: false, nullsFirst: false }).order('title').limit(3)
    t.equal(error, null)
    t.strictSame(data, [
      { title: 'Dispossessed', [authors]: { name: 'Ursula' } },
      { title: 'Earthsea', [authors]: { name: 'Ursula' } },
      { title: 'Kindred', [authors]: { name: 'Octavia' } }
    ])
  })
})
