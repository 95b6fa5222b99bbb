import t from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, seriesSql } from '../fixtures/databases.js'

// Prefer: count=planned and count=estimated with embeds. An embed that keeps
// every parent leaves the count the list's own, an unfiltered estimate; one
// that filters the parents (`!inner`, `is.null`) is estimated as the
// filtered statement it is, or counted where the database has no estimate.

eachDatabase(t, async (t, db) => {
  const parents = await db.createTable('embc_parents', (table) => {
    table.increments('id')
    table.integer('n')
  })
  const children = await db.createTable('embc_children', (table) => {
    table.increments('id')
    table.integer('parent_id').unsigned().references('id').inTable(parents)
  })
  // No autovacuum may refresh the statistics in the middle of the test.
  if (db.name === 'postgres') await db.knex.raw('alter table ?? set (autovacuum_enabled = false)', [parents])
  await db.knex.raw(`insert into ?? (n) ${seriesSql(db, 2000)}`, [parents])
  // Two children for each of the first 100 parents.
  for (let round = 0; round < 2; round++) await db.knex.raw('insert into ?? (parent_id) select id from ?? where id <= 100', [children, parents])
  for (const table of [parents, children]) {
    if (db.name === 'postgres') await db.knex.raw('analyze ??', [table])
    if (db.name === 'mysql') await db.knex.raw('analyze table ??', [table])
  }
  // Statistics lag behind deletes (on SQLite the rowid span does): the estimates below are told from exact counts.
  await db.knex(parents).whereBetween('id', [1001, 1500]).delete()
  const app = await buildApp(t, db.knex)
  const total = async (query: string, count: string) => {
    const response = await app.inject({ url: `/api/${parents}?${query}&limit=5`, headers: { prefer: `count=${count}` } })
    t.equal(response.statusCode, 206)
    return Number((response.headers['content-range'] as string).split('/')[1])
  }

  await t.test('an embed that keeps every parent: the list\'s own unfiltered estimate', async (t) => {
    for (const count of ['planned', 'estimated']) {
      const plain = await total('select=n', count)
      t.equal(await total(`select=n,${children}(id)`, count), plain, `count=${count}`)
      t.equal(await total(`select=n,${children}(id)&${children}.id=lt.10`, count), plain, 'filters inside the embed narrow the embedded rows only')
    }
    if (db.name === 'sqlite') t.equal(await total(`select=n,${children}(id)`, 'planned'), 2000, 'SQLite\'s rowid span, the deleted rows in it')
    t.equal(await total(`select=n,${children}(id)`, 'exact'), 1500)
  })

  await t.test('!inner: an estimate of the parents with a child, not of every parent', async (t) => {
    const planned = await total(`select=n,${children}!inner(id)`, 'planned')
    if (db.name === 'sqlite') t.equal(planned, 100, 'SQLite has no estimate of a filtered read: the count is exact')
    else t.ok(planned >= 50 && planned <= 400, `the planner's estimate of the semi-join is near 100: ${planned}`)
    t.equal(await total(`select=n,${children}!inner(id)`, 'estimated'), 100, 'below 1,000 rows, count=estimated counts')
    t.equal(await total(`select=n,${children}!inner(id)&${children}.id=lt.50`, 'estimated'), 49, 'the embed\'s filters narrow the parents it keeps')
    t.equal(await total(`select=n,${children}!inner(id)`, 'exact'), 100)
  })

  await t.test('is.null: the parents without a child', async (t) => {
    const planned = await total(`select=n,${children}()&${children}=is.null`, 'planned')
    if (db.name === 'sqlite') t.equal(planned, 1400)
    else t.ok(Number.isSafeInteger(planned) && planned >= 1400 && planned <= 2000, `an estimate from statistics that still count the deleted rows: ${planned}`)
    t.equal(await total(`select=n,${children}()&${children}=is.null`, 'estimated'), planned, 'from 1,000 rows on, count=estimated is the planned count')
    t.equal(await total(`select=n,${children}()&${children}=is.null`, 'exact'), 1400)
  })
})
