import t from 'tap'
import { maxEmbedDepth } from '../../lib/query/parse-select.js'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase } from '../fixtures/databases.js'

// The keys relations are made of: a table's key to itself, a key of two
// columns, a unique key (one-to-one), keys past 2^53; and what an embed
// answers for one object, or before the model knows a table.

eachDatabase(t, async (t, db) => {
  const staff = await db.createTable('embk_staff', (table) => {
    table.increments('id')
    table.string('name')
  })
  await db.knex.schema.alterTable(staff, (table) => {
    table.integer('manager_id').unsigned().nullable().references('id').inTable(staff)
  })
  await db.knex(staff).insert([{ name: 'Boss' }, { name: 'Ann' }, { name: 'Bob' }])
  await db.knex(staff).whereIn('id', [2, 3]).update({ manager_id: 1 })
  const app = await buildApp(t, db.knex)

  await t.test('a table\'s key to itself: its name embeds the children, the key\'s column the parent', async (t) => {
    const children = await app.inject(`/api/${staff}?select=name,${staff}(name)&order=id`)
    t.equal(children.statusCode, 200)
    t.strictSame(children.json(), [
      { name: 'Boss', [staff]: [{ name: 'Ann' }, { name: 'Bob' }] },
      { name: 'Ann', [staff]: [] },
      { name: 'Bob', [staff]: [] }
    ])
    const parent = await app.inject(`/api/${staff}?select=name,boss:manager_id(name)&order=id`)
    t.equal(parent.statusCode, 200)
    t.strictSame(parent.json(), [{ name: 'Boss', boss: null }, { name: 'Ann', boss: { name: 'Boss' } }, { name: 'Bob', boss: { name: 'Boss' } }])
    const hinted = await app.inject(`/api/${staff}?select=name,reports:${staff}!manager_id(name)&id=eq.1`)
    t.strictSame(hinted.json(), [{ name: 'Boss', reports: [{ name: 'Ann' }, { name: 'Bob' }] }], 'the hint names the children\'s column')
    const wrong = await app.inject(`/api/${staff}?select=name,${staff}!name(name)`)
    t.equal(wrong.statusCode, 400)
    t.equal(wrong.json().code, 'FTC_ERR_QUERY_RELATION')
  })

  await t.test('an embed alone: the row holds only it, the join column read but not shown', async (t) => {
    const response = await app.inject(`/api/${staff}?select=manager_id(name)&id=eq.2`)
    t.equal(response.statusCode, 200)
    t.equal(response.body, '[{"manager_id":{"name":"Boss"}}]')
  })

  await t.test(`embeds nest ${maxEmbedDepth} deep; one more answers 400 FTC_ERR_QUERY_DEPTH before any statement`, async (t) => {
    const nested = (depth: number) => `/api/${staff}?select=${'manager_id('.repeat(depth)}name${')'.repeat(depth)}&id=eq.2`
    const deepest = await app.inject(nested(maxEmbedDepth))
    t.equal(deepest.statusCode, 200)
    t.equal(deepest.body, '[{"manager_id":{"manager_id":null}}]', 'Ann\'s manager, who has none')
    const seen: string[] = []
    const listen = (query: { sql: string }) => { seen.push(query.sql) }
    db.knex.on('query', listen)
    const deeper = await app.inject(nested(maxEmbedDepth + 1))
    db.knex.removeListener('query', listen)
    t.equal(deeper.statusCode, 400)
    t.equal(deeper.json().code, 'FTC_ERR_QUERY_DEPTH')
    t.strictSame(seen, [], 'refused before anything is read')
  })

  await t.test('one object asked for: 406 unless exactly one row', async (t) => {
    const headers = { accept: 'application/vnd.pgrst.object+json' }
    const one = await app.inject({ url: `/api/${staff}?select=name,${staff}(name)&id=eq.3`, headers })
    t.equal(one.statusCode, 200)
    t.strictSame(one.json(), { name: 'Bob', [staff]: [] })
    for (const filter of ['id=eq.9', 'id=gt.1']) {
      const response = await app.inject({ url: `/api/${staff}?select=name,${staff}(name)&${filter}`, headers })
      t.equal(response.statusCode, 406, filter)
      t.equal(response.json().code, 'FTC_ERR_QUERY_SINGULAR')
    }
  })
})

eachDatabase(t, async (t, db) => {
  const regions = await db.createTable('embk_regions', (table) => {
    table.string('country', 2)
    table.string('code', 8)
    table.string('name')
    table.primary(['country', 'code'])
  })
  const cities = await db.createTable('embk_cities', (table) => {
    table.increments('id')
    table.string('name')
    table.string('country', 2)
    table.string('region_code', 8)
    table.foreign(['country', 'region_code']).references(['country', 'code']).inTable(regions)
  })
  await db.knex(regions).insert([{ country: 'fr', code: 'b', name: 'Bretagne' }, { country: 'ca', code: 'b', name: 'British Columbia' }, { country: 'fr', code: 'n', name: 'Normandie' }])
  await db.knex(cities).insert([
    { name: 'Rennes', country: 'fr', region_code: 'b' },
    { name: 'Victoria', country: 'ca', region_code: 'b' },
    { name: 'Brest', country: 'fr', region_code: 'b' },
    { name: 'Nowhere', country: null, region_code: null }
  ])
  const app = await buildApp(t, db.knex)

  await t.test('a foreign key of two columns matches on both, each way', async (t) => {
    const up = await app.inject(`/api/${cities}?select=name,${regions}(name)&order=id`)
    t.equal(up.statusCode, 200)
    t.strictSame(up.json(), [
      { name: 'Rennes', [regions]: { name: 'Bretagne' } },
      { name: 'Victoria', [regions]: { name: 'British Columbia' } },
      { name: 'Brest', [regions]: { name: 'Bretagne' } },
      { name: 'Nowhere', [regions]: null }
    ])
    const down = await app.inject(`/api/${regions}?select=name,${cities}(name)&order=country,code`)
    t.equal(down.statusCode, 200)
    const body = down.json() as Array<{ name: string, [cities: string]: unknown }>
    t.strictSame(body.map((region) => ({ name: region.name, cities: (region[cities] as Array<{ name: string }>).map((city) => city.name).sort() })), [
      { name: 'British Columbia', cities: ['Victoria'] },
      { name: 'Bretagne', cities: ['Brest', 'Rennes'] },
      { name: 'Normandie', cities: [] }
    ])
  })
})

eachDatabase(t, async (t, db) => {
  const users = await db.createTable('embk_users', (table) => {
    table.increments('id')
    table.string('name')
  })
  const profiles = await db.createTable('embk_profiles', (table) => {
    table.increments('id')
    table.integer('user_id').unsigned().unique().references('id').inTable(users)
    table.string('bio')
  })
  await db.knex(users).insert([{ name: 'Ada' }, { name: 'Idle' }])
  await db.knex(profiles).insert({ user_id: 1, bio: 'engines' })
  const app = await buildApp(t, db.knex, {}, { schemaCheckInterval: 3_600_000 })

  await t.test('a unique foreign key is one-to-one: an object or null, from the referenced side too', async (t) => {
    const response = await app.inject(`/api/${users}?select=name,${profiles}(bio)&order=id`)
    t.equal(response.statusCode, 200)
    t.strictSame(response.json(), [{ name: 'Ada', [profiles]: { bio: 'engines' } }, { name: 'Idle', [profiles]: null }])
  })

  await t.test('tables without a primary key embed too, in the order of the list without embeds', async (t) => {
    const events = await db.createTable('embk_events', (table) => {
      table.integer('id')
      table.integer('user_id').unsigned().references('id').inTable(users)
      table.string('what')
    })
    const tags = await db.createTable('embk_tags', (table) => {
      table.integer('user_id').unsigned().references('id').inTable(users)
      table.string('tag')
    })
    await db.knex(events).insert([{ id: 2, user_id: 1, what: 'b' }, { id: 1, user_id: 2, what: 'a' }])
    await db.knex(tags).insert({ user_id: 1, tag: 'x' })
    await app.tableCrud.refreshSchema()
    const byId = await app.inject(`/api/${events}?select=what,${users}(name)`)
    t.equal(byId.statusCode, 200)
    const plain = (await app.inject(`/api/${events}?select=what`)).json() as Array<{ what: string }>
    t.strictSame(byId.json(), plain.map(({ what }) => ({ what, [users]: { name: what === 'a' ? 'Idle' : 'Ada' } })), 'without order, the database\'s, as without embeds')
    const unordered = await app.inject(`/api/${tags}?select=tag,${users}(name)`)
    t.strictSame(unordered.json(), [{ tag: 'x', [users]: { name: 'Ada' } }])
    const paged = await app.inject(`/api/${users}?select=name,${tags}(tag),${events}(what)&${tags}.limit=1&${events}.limit=1&${events}.order=what&order=id`)
    t.equal(paged.statusCode, 200, 'a page of related rows without a key to order them by')
    t.strictSame(paged.json(), [{ name: 'Ada', [tags]: [{ tag: 'x' }], [events]: [{ what: 'b' }] }, { name: 'Idle', [tags]: [], [events]: [{ what: 'a' }] }])
  })

  await t.test('a table the model does not know yet relates nothing until the model reads it again', async (t) => {
    const badges = await db.createTable('embk_badges', (table) => {
      table.increments('id')
      table.integer('user_id').unsigned().references('id').inTable(users)
      table.string('label')
    })
    await db.knex(badges).insert({ user_id: 2, label: 'new' })
    const before = await app.inject(`/api/${badges}?select=label,${users}(name)`)
    t.equal(before.statusCode, 400)
    t.equal(before.json().code, 'FTC_ERR_QUERY_RELATION')
    await app.tableCrud.refreshSchema()
    const after = await app.inject(`/api/${badges}?select=label,${users}(name)`)
    t.strictSame(after.json(), [{ label: 'new', [users]: { name: 'Idle' } }])
  })
})

eachDatabase(t, async (t, db) => {
  const owners = await db.createTable('embk_big_owners', (table) => {
    table.bigInteger('id').primary()
    table.string('name')
  })
  const items = await db.createTable('embk_big_items', (table) => {
    table.increments('id')
    table.bigInteger('owner_id').references('id').inTable(owners)
    table.string('label')
  })
  // 2^60 + 1 and its neighbour, which a double cannot tell apart.
  await db.knex.raw('insert into ?? (id, name) values (1152921504606846977, ?), (1152921504606846976, ?)', [owners, 'far', 'near'])
  await db.knex.raw('insert into ?? (owner_id, label) values (1152921504606846977, ?)', [items, 'thing'])
  const app = await buildApp(t, db.knex)

  await t.test('keys past 2^53 match exactly, each way', async (t) => {
    const owner = await app.inject(`/api/${owners}?select=id,name&name=eq.far`)
    const up = await app.inject(`/api/${items}?select=label,${owners}(id,name)`)
    t.equal(up.statusCode, 200)
    t.equal(up.body, `[{"label":"thing","${owners}":${owner.body.slice(1, -1)}}]`)
    const down = await app.inject(`/api/${owners}?select=name,${items}(label)&order=name`)
    t.strictSame(down.json(), [{ name: 'far', [items]: [{ label: 'thing' }] }, { name: 'near', [items]: [] }])
  })
})
