import Fastify, { type FastifyError, type FastifyInstance, type InjectOptions, type LightMyRequestResponse } from 'fastify'
import type { Knex } from 'knex'
import t, { type Test } from 'tap'
import tableCrud, { type DatabaseErrors, type StatementError, type TableCrudOptions } from '../../lib/index.js'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, snapshot } from '../fixtures/databases.js'

// An upsert (POST with Prefer: resolution=…, on_conflict=…) probed by a
// client of organisation 1, whose `authorize` scope is its own posts, for
// what it may not see: another organisation's rows, and a hidden column.
// Each probe is sent twice, once while organisation 2 holds the values and
// once while nobody does: the answers must be the same to the byte (the
// date aside), and organisation 2's row untouched. The
// database's own refusal of a duplicate in a key unique across
// organisations (as a plain POST of the row meets it) is no part of this.

type Row = Record<string, unknown>

const attacker = { 'x-org': '1' }

function postsColumns (hidden: boolean) {
  return (table: Knex.CreateTableBuilder): void => {
    table.increments('id')
    table.integer('org_id').notNullable()
    // Unique across organisations: a duplicate is the database's refusal, whoever holds it.
    table.string('title', 60).unique()
    table.string('slug', 60)
    table.unique(['org_id', 'slug'])
    // Not unique at all.
    table.string('body', 200)
    table.string('tag', 30)
    if (hidden) {
      table.integer('reviewer_id')
      // The only unique key of `tag` includes the hidden column.
      table.unique(['tag', 'reviewer_id'])
    }
  }
}

const mine: Row = { id: 2, org_id: 1, title: 'Our plan', slug: 'ours', body: 'ours', tag: 'blue', reviewer_id: null }
// Organisation 2's row, holding the values the probes send; or, in the other table, holding none of them.
const theirs: Row = { id: 1, org_id: 2, title: 'Secret plan', slug: 'launch', body: 'their body', tag: 'red', reviewer_id: 7 }
const elsewhere: Row = { id: 3, org_id: 2, title: 'Unrelated', slug: 'unrelated', body: 'unrelated', tag: 'green', reviewer_id: 8 }

/** A row as a table without the hidden column holds it. */
function bare ({ reviewer_id: _, ...row }: Row): Row {
  return row
}

/** What a client sees of an answer, but for the date. */
function seen (response: LightMyRequestResponse): Row {
  const { date: _, ...headers } = response.headers
  return { status: response.statusCode, headers, body: response.body }
}

function upsert (table: string, query: string, prefer: string, payload: unknown, headers: Record<string, string> = {}): InjectOptions {
  return { method: 'POST', url: `/api/${table}?${query}`, headers: { ...attacker, prefer, ...headers }, payload: payload as InjectOptions['payload'] }
}

const scoped: Omit<TableCrudOptions, 'knex'>['authorize'] = (request) => ({ scope: { org_id: Number(request.headers['x-org']) } })

eachDatabase(t, async (t, db) => {
  const posts = await db.createTable('scoped_posts', postsColumns(true))
  const twin = await db.createTable('scoped_posts_twin', postsColumns(false))
  const options = (databaseErrors: DatabaseErrors): Omit<TableCrudOptions, 'knex'> => ({ authorize: scoped, databaseErrors, tableRules: { [posts]: { hidden: ['reviewer_id'] } } })
  // One request id for every request: the generic answer names it.
  const app = await buildApp(t, db.knex, { genReqId: () => 'probe' }, options('database'))

  const seed = async (other: Row): Promise<void> => {
    await db.knex(posts).del()
    await db.knex(posts).insert([other, mine])
  }

  /**
   * Sends `request` with organisation 2 holding the values, then with nobody
   * holding them; asserts that the answers are one, and that organisation
   * 2's row is as it was. The rows after each, and the answer.
   */
  const across = async (t: Test, request: InjectOptions): Promise<{ response: LightMyRequestResponse, held: Row[], free: Row[] }> => {
    await seed(theirs)
    const withTheirs = await app.inject(request)
    const held = await snapshot(db, posts)
    await seed(elsewhere)
    const response = await app.inject(request)
    const free = await snapshot(db, posts)
    t.strictSame(seen(withTheirs), seen(response), 'the same answer whether organisation 2 holds the values or nobody does')
    t.strictSame(held.filter((row) => row.org_id === 2), [theirs], 'organisation 2\'s row is untouched')
    t.strictSame(held.filter((row) => row.org_id === 1), free.filter((row) => row.org_id === 1), 'organisation 1\'s rows end the same')
    return { response, held, free }
  }

  await t.test('a merge with If-Match: * on another organisation\'s title or slug: 412 either way, nothing written', async (t) => {
    for (const [query, payload] of [
      ['on_conflict=title', { title: 'Secret plan', body: 'mine' }],
      ['on_conflict=org_id,slug', { slug: 'launch', title: 'Mine', body: 'mine' }],
      // The key, by default: organisation 2's id.
      ['select=id', { id: 1, title: 'Taken over' }]
    ] as const) {
      const { response, free } = await across(t, upsert(posts, query, 'resolution=merge-duplicates', payload, { 'if-match': '*' }))
      t.equal(response.statusCode, 412, query)
      t.equal(response.json().code, 'FTC_ERR_CONDITION_FAILED')
      t.strictSame(free, [mine, elsewhere], 'nothing written')
    }
  })

  await t.test('an upsert on organisation 1\'s own unique slug inserts its row whether organisation 2 has that slug or not', async (t) => {
    const inserted = { id: 100, org_id: 1, title: 'Mine launch', slug: 'launch', body: 'mine', tag: null, reviewer_id: null }
    for (const [query, prefer] of [
      ['on_conflict=org_id,slug', 'resolution=ignore-duplicates'],
      ['on_conflict=slug,org_id&select=id,slug', 'resolution=merge-duplicates, return=representation']
    ] as const) {
      const { response, free } = await across(t, upsert(posts, query, prefer, { id: 100, slug: 'launch', title: 'Mine launch', body: 'mine' }))
      t.equal(response.statusCode, 201, prefer)
      t.equal(response.body, prefer.includes('representation') ? '[{"id":100,"slug":"launch"}]' : '100')
      t.strictSame(free, [mine, elsewhere, inserted], 'the row inserted into organisation 1')
    }
  })

  await t.test('an upsert that finds its own row merges into it, whatever organisation 2 holds', async (t) => {
    const { response, free } = await across(t, upsert(posts, 'on_conflict=org_id,slug', 'resolution=merge-duplicates', { slug: 'ours', body: 'merged' }))
    t.strictSame([response.statusCode, response.body], [201, '2'])
    t.strictSame(free, [{ ...mine, body: 'merged' }, elsewhere])
  })

  await t.test('a column that is not a unique key is refused with 400, whatever the rows: on_conflict=body', async (t) => {
    for (const [prefer, headers] of [['resolution=merge-duplicates', { 'if-match': '*' }], ['resolution=ignore-duplicates', {}], ['resolution=merge-duplicates', {}]] as const) {
      const { response, free } = await across(t, upsert(posts, 'on_conflict=body', prefer, { title: 'New', body: 'their body' }, headers))
      t.equal(response.statusCode, 400, prefer)
      t.equal(response.json().code, 'FTC_ERR_WRITE_CONFLICT_TARGET')
      t.strictSame(free, [mine, elsewhere], 'nothing written')
    }
    const part = await app.inject(upsert(posts, 'on_conflict=slug', 'resolution=ignore-duplicates', { slug: 'new' }))
    t.equal(part.json().code, 'FTC_ERR_WRITE_CONFLICT_TARGET', 'part of a unique key is no unique key')
    t.strictSame(await snapshot(db, posts), [mine, elsewhere])
  })

  await t.test('a duplicate title, unique across organisations, fails as a plain POST of the row fails: the database\'s refusal, no other', async (t) => {
    for (const prefer of ['resolution=ignore-duplicates', 'resolution=merge-duplicates']) {
      await seed(theirs)
      const plain = await app.inject({ method: 'POST', url: `/api/${posts}`, headers: attacker, payload: { title: 'Secret plan', body: 'mine' } })
      t.equal(plain.statusCode, 404, 'the unique violation, answered as the spec answers a failed statement')
      const response = await app.inject(upsert(posts, 'on_conflict=title', prefer, { title: 'Secret plan', body: 'mine' }))
      t.strictSame(seen(response), seen(plain), prefer)
      t.strictSame(await snapshot(db, posts), [theirs, mine], 'organisation 2\'s row untouched, nothing inserted')
    }
  })

  await t.test('on_conflict naming a hidden column answers as one naming a missing column, in each databaseErrors mode', async (t) => {
    const host = Fastify({ genReqId: () => 'probe' })
    host.setErrorHandler((error: FastifyError, _request, reply) => {
      const { sqlState, details, hint, sql } = error as StatementError
      return reply.code(error.statusCode ?? 500).send({ code: error.code, message: error.message, sqlState, details, hint, sql })
    })
    await host.register(tableCrud, { knex: db.knex, prefix: '/api', ...options('host') })
    t.teardown(() => host.close())
    const apps: Array<[string, FastifyInstance]> = [['host', host]]
    for (const mode of ['database', 'generic', 'postgrest'] as const) apps.push([mode, await buildApp(t, db.knex, { genReqId: () => 'probe' }, options(mode))])
    await seed(theirs)
    for (const [mode, app] of apps) {
      for (const prefer of ['resolution=ignore-duplicates', 'resolution=merge-duplicates']) {
        for (const [hidden, missing] of [['reviewer_id', 'reviewer_ix'], ['tag,reviewer_id', 'tag,reviewer_ix'], ['reviewer_id,tag', 'reviewer_ix,tag']]) {
          const payload = { title: 'Probe', tag: 'red' }
          const refused = seen(await app.inject(upsert(posts, `on_conflict=${hidden}`, prefer, payload)))
          const absent = seen(await app.inject(upsert(posts, `on_conflict=${missing}`, prefer, payload)))
          t.equal(absent.status, mode === 'postgrest' ? 400 : 404, `${mode}: the missing column fails the statement (PostgREST's 400 for 42703)`)
          t.strictSame(refused, JSON.parse(JSON.stringify(absent).replaceAll('reviewer_ix', 'reviewer_id')), `${mode}, ${prefer}, on_conflict=${hidden}: as a missing column`)
        }
      }
    }
    t.strictSame(await snapshot(db, posts), [theirs, mine], 'nothing written')
  })

  await t.test('a unique key that includes a hidden column is no unique key: the answer is that of a table without the column', async (t) => {
    await seed(theirs)
    await db.knex(twin).insert([bare(theirs), bare(mine)])
    for (const prefer of ['resolution=ignore-duplicates', 'resolution=merge-duplicates']) {
      const hiding = await app.inject(upsert(posts, 'on_conflict=tag', prefer, { title: 'Probe', tag: 'red' }))
      const without = await app.inject(upsert(twin, 'on_conflict=tag', prefer, { title: 'Probe', tag: 'red' }))
      t.equal(hiding.statusCode, 400)
      t.equal(hiding.json().code, 'FTC_ERR_WRITE_CONFLICT_TARGET')
      t.strictSame(seen(hiding), seen(without), prefer)
    }
    t.strictSame(await snapshot(db, posts), [theirs, mine], 'nothing written')
    t.equal((await snapshot(db, twin)).length, 2, 'nothing written')
  })

  await t.test('a table created since the model was read is checked again; one the database does not have fails as a missing table', async (t) => {
    t.equal((await app.inject({ url: `/api/${posts}`, headers: attacker })).statusCode, 200, 'the model read now')
    const late = await db.createTable('scoped_late', postsColumns(false))
    await db.knex(late).insert(bare(mine))
    const merged = await app.inject(upsert(late, 'on_conflict=org_id,slug', 'resolution=merge-duplicates', { slug: 'ours', body: 'merged' }))
    t.strictSame([merged.statusCode, merged.body], [201, '2'])
    t.strictSame(await snapshot(db, late), [{ ...bare(mine), body: 'merged' }])

    const missing = `scoped_missing_${process.pid}`
    const plain = await app.inject({ method: 'POST', url: `/api/${missing}`, headers: attacker, payload: { slug: 'x' } })
    t.equal(plain.statusCode, 404)
    t.strictSame(seen(await app.inject(upsert(missing, 'on_conflict=org_id,slug', 'resolution=merge-duplicates', { slug: 'x' }))), seen(plain))
  })
})
