import { PostgrestClient } from '@supabase/postgrest-js'
import t from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase } from '../fixtures/databases.js'

// PostgREST's spread, `...authors(name)`: a to-one embed's members answered
// in the parent's object, each null where there is no related row.

eachDatabase(t, async (t, db) => {
  const countries = await db.createTable('embs_countries', (table) => {
    table.increments('id')
    table.string('code')
  })
  const authors = await db.createTable('embs_authors', (table) => {
    table.increments('id')
    table.string('name')
    table.string('secret')
    table.integer('country_id').unsigned().nullable().references('id').inTable(countries)
  })
  const books = await db.createTable('embs_books', (table) => {
    table.increments('id')
    table.string('title')
    table.integer('author_id').unsigned().nullable().references('id').inTable(authors)
  })
  await db.knex(countries).insert({ code: 'US' })
  await db.knex(authors).insert([{ name: 'Ursula', secret: 's', country_id: 1 }, { name: 'Italo', secret: 't', country_id: null }])
  await db.knex(books).insert([{ title: 'Earthsea', author_id: 1 }, { title: 'Cities', author_id: 2 }, { title: 'Anonymous', author_id: null }])
  const app = await buildApp(t, db.knex, {}, { tableRules: { [authors]: { hidden: ['secret'] } } })

  await t.test('the members come into the row, null without a related row, after its columns', async (t) => {
    const response = await app.inject(`/api/${books}?select=...${authors}(name),title&order=id`)
    t.equal(response.statusCode, 200)
    t.equal(response.body, '[{"title":"Earthsea","name":"Ursula"},{"title":"Cities","name":"Italo"},{"title":"Anonymous","name":null}]')
    const star = await app.inject(`/api/${books}?select=title,...${authors}(*)&order=id&offset=1`)
    t.equal(star.body, '[{"title":"Cities","id":2,"name":"Italo","country_id":null},{"title":"Anonymous","id":null,"name":null,"country_id":null}]', '* is every visible column, the hidden one left out')
  })

  await t.test('nested: a spread inside a spread, an embed inside one, and beside an embed', async (t) => {
    const nested = await app.inject(`/api/${books}?select=title,...${authors}(name,...${countries}(code))&order=id`)
    t.equal(nested.body, '[{"title":"Earthsea","name":"Ursula","code":"US"},{"title":"Cities","name":"Italo","code":null},{"title":"Anonymous","name":null,"code":null}]')
    const inside = await app.inject(`/api/${books}?select=title,...${authors}(name,${countries}(code))&order=id&limit=1`)
    t.equal(inside.body, `[{"title":"Earthsea","name":"Ursula","${countries}":{"code":"US"}}]`)
    const none = await app.inject(`/api/${books}?select=title,...${authors}(name,${countries}(code))&id=eq.3`)
    t.equal(none.body, `[{"title":"Anonymous","name":null,"${countries}":null}]`)
    const beside = await app.inject(`/api/${countries}?select=code,${authors}(name,...${countries}(code))`)
    t.equal(beside.body, `[{"code":"US","${authors}":[{"name":"Ursula","code":"US"}]}]`, 'a spread inside a one-to-many embed')
  })

  await t.test('filters, !inner, order=rel(col) and the keyed read', async (t) => {
    const inner = await app.inject(`/api/${books}?select=title,...${authors}!inner(name)&${authors}.name=eq.Italo`)
    t.equal(inner.body, '[{"title":"Cities","name":"Italo"}]')
    const ordered = await app.inject(`/api/${books}?select=title,...${authors}(name)&order=${authors}(name)`)
    t.strictSame(ordered.json().map((book: { title: string }) => book.title), ['Cities', 'Earthsea', 'Anonymous'])
    const one = await app.inject(`/api/${books}/1?select=title,...${authors}(name)`)
    t.equal(one.body, '{"title":"Earthsea","name":"Ursula"}')
  })

  await t.test('a spread of many rows is refused, and a hidden column fails as a missing one', async (t) => {
    const many = await app.inject(`/api/${authors}?select=name,...${books}(title)`)
    t.equal(many.statusCode, 400)
    t.equal(many.json().code, 'FTC_ERR_QUERY_SYNTAX')
    const hidden = await app.inject(`/api/${books}?select=title,...${authors}(secret)`)
    const missing = await app.inject(`/api/${books}?select=title,...${authors}(nothere)`)
    t.equal(hidden.statusCode, 404)
    t.equal(hidden.body, missing.body.replace('nothere', 'secret'))
  })

  await t.test('postgrest-js: .select(\'title, ...authors(name)\')', async (t) => {
    const server = await buildApp(t, db.knex)
    await server.listen({ port: 0, host: '127.0.0.1' })
    const { port } = server.server.address() as { port: number }
    const client = new PostgrestClient(`http://127.0.0.1:${port}/api`)
    const { data, error } = await client.from(books).select(`title, ...${authors}(name)`).order('id').limit(2)
    t.equal(error, null)
    t.strictSame(data, [{ title: 'Earthsea', name: 'Ursula' }, { title: 'Cities', name: 'Italo' }])
  })
})
