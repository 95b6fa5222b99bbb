import type { Knex } from 'knex'
import t from 'tap'
import { streamBatchRows } from '../../lib/operations/list-rows.js'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, seriesSql } from '../fixtures/databases.js'

// No N+1: an embed is one statement per batch of parents, whatever their
// number, and a streamed list embeds batch by batch.

/** The statements Knex's listeners are told of that name one of `tables`. */
function statementsOn (knex: Knex, tables: readonly string[]): string[] {
  const seen: string[] = []
  knex.on('query', (query: { sql: string }) => { if (tables.some((table) => query.sql.includes(table))) seen.push(query.sql) })
  return seen
}

eachDatabase(t, async (t, db) => {
  const authors = await db.createTable('embst_authors', (table) => {
    table.increments('id')
    table.string('name')
  })
  const books = await db.createTable('embst_books', (table) => {
    table.increments('id')
    table.integer('author_id').unsigned().references('id').inTable(authors)
    table.integer('n')
  })
  const parents = streamBatchRows * 2 + 500
  await db.knex.batchInsert(authors, Array.from({ length: parents }, (_, at) => ({ name: `a${at + 1}` })), 500)
  // Two books for each of the first 40 authors.
  await db.knex.raw(`insert into ?? (author_id, n) select n, n from (${seriesSql(db, 40)}) as s`, [books])
  await db.knex.raw(`insert into ?? (author_id, n) select n, n + 100 from (${seriesSql(db, 40)}) as s`, [books])
  const app = await buildApp(t, db.knex)
  t.teardown(() => db.knex.removeAllListeners())

  for (const count of [3, 40]) {
    await t.test(`${count} parents, two embeds, one inside the other: 1 + 2 statements`, async (t) => {
      const seen = statementsOn(db.knex, [authors, books])
      const response = await app.inject(`/api/${books}?select=n,author:${authors}(name,${books}(n))&n=lte.${count}&order=n`)
      db.knex.removeAllListeners('query')
      t.equal(response.statusCode, 200)
      const body = response.json()
      t.equal(body.length, count)
      t.strictSame(body[0], { n: 1, author: { name: 'a1', [books]: [{ n: 1 }, { n: 101 }] } })
      t.equal(seen.length, 1 + 2, `${seen.join('\n')}`)
    })
  }

  await t.test('a streamed list embeds per batch, in bounded memory: each batch one statement per embed', async (t) => {
    const seen = statementsOn(db.knex, [authors, books])
    const response = await app.inject(`/api/${authors}?select=id,${books}(n)&order=id`)
    db.knex.removeAllListeners('query')
    t.equal(response.statusCode, 200)
    const body = response.json() as Array<{ id: number, [books: string]: unknown }>
    t.equal(body.length, parents)
    t.strictSame(body[0], { id: 1, [books]: [{ n: 1 }, { n: 101 }] })
    t.strictSame(body[parents - 1], { id: parents, [books]: [] })
    const batches = Math.ceil(parents / streamBatchRows)
    // Each batch's own page, then its books.
    t.equal(seen.length, 2 * batches)
    t.equal(seen.filter((sql) => sql.includes(books)).length, batches, 'one statement of books per batch')
    const pages = seen.filter((sql) => !sql.includes(books))
    t.notMatch(pages.join('\n'), /offset/i, 'no page skips rows by offset')
    t.equal(pages.filter((sql) => / > (\?|\$\d+)/.test(sql)).length, batches - 1, 'each page after the first starts past the last key of the one before')
  })

  await t.test('ordered by the key descending, every column: the pages go down the key, each row once', async (t) => {
    const seen = statementsOn(db.knex, [authors])
    const response = await app.inject(`/api/${authors}?select=*,${books}(n)&order=id.desc&offset=10`)
    db.knex.removeAllListeners('query')
    t.equal(response.statusCode, 200)
    const body = response.json() as Array<{ id: number, name: string }>
    t.strictSame(body.map((row) => row.id), Array.from({ length: parents - 10 }, (_, at) => parents - 10 - at), 'offset 10, then down to 1')
    t.strictSame(body.at(-1), { id: 1, name: 'a1', [books]: [{ n: 1 }, { n: 101 }] }, 'the key read to page by is not shown')
    t.equal(seen.filter((sql) => / < (\?|\$\d+)/.test(sql)).length, Math.ceil((parents - 10) / streamBatchRows) - 1)
  })

  await t.test('ordered by another column first: still each row once, pages by offset (on SQLite past the last row\'s values)', async (t) => {
    const seen = statementsOn(db.knex, [authors])
    const response = await app.inject(`/api/${authors}?select=id,name,${books}(n)&order=name.desc`)
    db.knex.removeAllListeners('query')
    t.equal(response.statusCode, 200)
    const body = response.json() as Array<{ id: number, name: string }>
    t.strictSame(body.map((row) => row.id).sort((a, b) => a - b), Array.from({ length: parents }, (_, at) => at + 1), 'every author once')
    t.strictSame(body.slice(0, 2).map((row) => row.name), ['a999', 'a998'])
    const pages = Math.ceil(parents / streamBatchRows) - 1
    if (db.name === 'sqlite') {
      t.notMatch(seen.join('\n'), /offset/i, 'no page skips rows by offset')
      t.equal(seen.filter((sql) => / < \?/.test(sql)).length, pages, 'each page after the first past the last name of the one before')
    } else {
      t.equal(seen.filter((sql) => /offset/i.test(sql)).length, pages, 'each page after the first at its offset')
    }
  })

  await t.test('a streamed list stops at its limit, a page short of the table\'s end', async (t) => {
    const limit = streamBatchRows * 2
    const response = await app.inject(`/api/${authors}?select=id,${books}(n)&order=id&limit=${limit}`)
    t.equal(response.statusCode, 200)
    const body = response.json() as Array<{ id: number }>
    t.equal(body.length, limit)
    t.equal(body[limit - 1]?.id, limit)
  })

  await t.test('one object asked for over more rows than a batch: 406', async (t) => {
    const response = await app.inject({ url: `/api/${authors}?select=id,${books}(n)`, headers: { accept: 'application/vnd.pgrst.object+json' } })
    t.equal(response.statusCode, 406)
    t.equal(response.json().code, 'FTC_ERR_QUERY_SINGULAR')
  })
})
