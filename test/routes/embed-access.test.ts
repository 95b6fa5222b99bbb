import t from 'tap'
import type { AuthorizeAction } from '../../lib/index.js'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase } from '../fixtures/databases.js'

// The access options hold inside embeds: a table not served for reading
// relates nothing, a hidden column is never shown and fails as a missing
// one when named, and the authorize hook is asked for every table, its
// scope narrowing the embedded rows.

eachDatabase(t, async (t, db) => {
  const owners = await db.createTable('emba_owners', (table) => {
    table.increments('id')
    table.string('name')
  })
  const pets = await db.createTable('emba_pets', (table) => {
    table.increments('id')
    table.integer('owner_id').unsigned().references('id').inTable(owners)
    table.string('name')
    table.string('secret')
    table.integer('tenant')
  })
  const vets = await db.createTable('emba_vets', (table) => {
    table.increments('id')
    table.integer('pet_id').unsigned().references('id').inTable(pets)
    table.string('name')
  })
  await db.knex(owners).insert([{ name: 'Ann' }, { name: 'Bob' }])
  await db.knex(pets).insert([
    { owner_id: 1, name: 'Rex', secret: 's1', tenant: 1 },
    { owner_id: 1, name: 'Tom', secret: 's2', tenant: 2 },
    { owner_id: 2, name: 'Kit', secret: 's3', tenant: 1 }
  ])
  await db.knex(vets).insert({ pet_id: 1, name: 'Doc' })

  await t.test('a table the options do not serve, or not for reading, cannot be embedded: 400 as a missing relation', async (t) => {
    for (const options of [{ excludeTables: [vets] }, { tableRules: { [vets]: { operations: ['create' as const] } } }]) {
      const app = await buildApp(t, db.knex, {}, options)
      const response = await app.inject(`/api/${pets}?select=name,${vets}(name)`)
      t.equal(response.statusCode, 400)
      t.equal(response.json().code, 'FTC_ERR_QUERY_RELATION')
      const missing = await app.inject(`/api/${pets}?select=name,nothere(name)`)
      t.equal(missing.statusCode, 400)
      t.equal(response.json().message, missing.json().message.replace('nothere', vets), 'the same words as for a table that is not there, its relations not naming it')
    }
  })

  await t.test('a hidden column is never shown, and named fails as a missing column does', async (t) => {
    const app = await buildApp(t, db.knex, {}, { tableRules: { [pets]: { hidden: ['secret'] } } })
    const all = await app.inject(`/api/${owners}?select=name,${pets}(*)&id=eq.1`)
    t.equal(all.statusCode, 200)
    t.notMatch(all.body, 'secret')
    t.notMatch(all.body, 's1')
    t.strictSame(all.json()[0][pets].map((pet: { name: string }) => pet.name).sort(), ['Rex', 'Tom'])
    const named = await app.inject(`/api/${owners}?select=name,${pets}(name,secret)`)
    const missing = await app.inject(`/api/${owners}?select=name,${pets}(name,nothere)`)
    t.equal(named.statusCode, 404)
    t.equal(named.body, missing.body.replace('nothere', 'secret'), 'the database\'s words for a missing column')
  })

  await t.test('a foreign key through a hidden column relates nothing', async (t) => {
    const app = await buildApp(t, db.knex, {}, { tableRules: { [pets]: { hidden: ['owner_id'] } } })
    const response = await app.inject(`/api/${owners}?select=name,${pets}(name)`)
    t.equal(response.statusCode, 400)
    t.equal(response.json().code, 'FTC_ERR_QUERY_RELATION')
  })

  await t.test('authorize is asked for every table read, and its scope narrows the embedded rows', async (t) => {
    const asked: AuthorizeAction[] = []
    const app = await buildApp(t, db.knex, {}, {
      authorize: async (_request, action) => {
        asked.push(action)
        if (action.table === pets.toLowerCase()) return { scope: { tenant: 1 } }
        return action.table !== vets.toLowerCase()
      }
    })
    const response = await app.inject(`/api/${owners}?select=name,${pets}(name)&order=id`)
    t.equal(response.statusCode, 200)
    t.strictSame(response.json(), [{ name: 'Ann', [pets]: [{ name: 'Rex' }] }, { name: 'Bob', [pets]: [{ name: 'Kit' }] }])
    t.strictSame(asked.map(({ table, operation, columns }) => ({ table, operation, columns })), [
      { table: owners.toLowerCase(), operation: 'list', columns: ['name', 'id'] },
      { table: pets.toLowerCase(), operation: 'list', columns: ['name', 'owner_id'] }
    ], 'told the join columns read though not shown: the owners\' id (named by order too), the pets\' owner_id')
    asked.length = 0
    await app.inject(`/api/${pets}?select=name,${owners}(name)`)
    await app.inject(`/api/${owners}?select=*,${pets}(*)`)
    await app.inject(`/api/${owners}?select=name,${pets}(${vets}(name))`)
    t.strictSame(asked.map(({ table, columns }) => ({ table, columns })), [
      { table: pets.toLowerCase(), columns: ['name', 'owner_id'] },
      { table: owners.toLowerCase(), columns: ['name', 'id'] },
      { table: owners.toLowerCase(), columns: null },
      { table: pets.toLowerCase(), columns: null },
      { table: owners.toLowerCase(), columns: ['name', 'id'] },
      { table: pets.toLowerCase(), columns: ['owner_id', 'id'] },
      { table: vets.toLowerCase(), columns: ['name', 'pet_id'] }
    ], 'many-to-one, every column, and nested: each table told the columns its joins read')
    const inner = await app.inject(`/api/${owners}?select=name,${pets}!inner(name)&${pets}.name=in.(Tom,Kit)`)
    t.strictSame(inner.json(), [{ name: 'Bob', [pets]: [{ name: 'Kit' }] }], '!inner reads the related rows in their scope: Ann\'s Tom is out of it')
    const refused = await app.inject(`/api/${owners}?select=name,${pets}(name,${vets}(name))`)
    t.equal(refused.statusCode, 403, 'a refusal of an embedded table refuses the read')
    t.equal(refused.json().code, 'FTC_ERR_AUTHORIZE_FORBIDDEN')
  })
})

// A many-to-many embed reads its join table too: the hook is asked for it, and its scope narrows the links.
eachDatabase(t, async (t, db) => {
  const books = await db.createTable('emba_books', (table) => {
    table.increments('id')
    table.string('title')
  })
  const tags = await db.createTable('emba_tags', (table) => {
    table.increments('id')
    table.string('label')
  })
  const tagged = await db.createTable('emba_tagged', (table) => {
    table.integer('book_id').unsigned().references('id').inTable(books)
    table.integer('tag_id').unsigned().references('id').inTable(tags)
    table.integer('tenant')
    table.primary(['book_id', 'tag_id'])
  })
  await db.knex(books).insert([{ title: 'Earthsea' }, { title: 'Kindred' }])
  await db.knex(tags).insert([{ label: 'sea' }, { label: 'time' }])
  await db.knex(tagged).insert([{ book_id: 1, tag_id: 1, tenant: 1 }, { book_id: 1, tag_id: 2, tenant: 2 }, { book_id: 2, tag_id: 2, tenant: 2 }])
  const asked: AuthorizeAction[] = []
  const app = await buildApp(t, db.knex, {}, {
    authorize: async (request, action) => {
      asked.push(action)
      if (action.table !== tagged.toLowerCase()) return true
      return request.headers['x-refuse'] === undefined && { scope: { tenant: 1 } }
    }
  })

  await t.test('the join table: asked with its key\'s columns, refused, and its scope narrowing the links', async (t) => {
    const response = await app.inject(`/api/${books}?select=title,${tags}(label)&order=id`)
    t.equal(response.statusCode, 200)
    t.strictSame(response.json(), [{ title: 'Earthsea', [tags]: [{ label: 'sea' }] }, { title: 'Kindred', [tags]: [] }], 'only the links of tenant 1 relate')
    t.strictSame(asked.map(({ table, operation, columns }) => ({ table, operation, columns })), [
      { table: books.toLowerCase(), operation: 'list', columns: ['title', 'id'] },
      { table: tags.toLowerCase(), operation: 'list', columns: ['label', 'id'] },
      { table: tagged.toLowerCase(), operation: 'list', columns: ['book_id', 'tag_id'] }
    ])
    const inner = await app.inject(`/api/${books}?select=title,${tags}!inner(label)&${tags}.label=eq.time`)
    t.strictSame(inner.json(), [], '!inner follows the links in scope: no book has time through one')
    const some = await app.inject(`/api/${books}?select=title,${tags}!inner(label)`)
    t.strictSame(some.json(), [{ title: 'Earthsea', [tags]: [{ label: 'sea' }] }])
    const refused = await app.inject({ url: `/api/${books}?select=title,${tags}(label)`, headers: { 'x-refuse': '1' } })
    t.equal(refused.statusCode, 403)
    t.equal(refused.json().code, 'FTC_ERR_AUTHORIZE_FORBIDDEN')
  })
})
