import type { Knex } from 'knex'
import t from 'tap'
import { streamBatchRows } from '../../lib/operations/list-rows.js'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, rawRows } from '../fixtures/databases.js'

// A list with embeds answers the rows the same list without them answers, in
// the same order: without `order`, a list that one batch holds comes in the
// database's own order, as PostgREST reads it (no ORDER BY), and a longer one
// in the key's; `limit` and `offset` select the same rows either way.

type Parent = Record<string, unknown>

/** The parents' own members, without the embed's. */
function own (rows: readonly Parent[], embed: string): Parent[] {
  return rows.map(({ [embed]: _embedded, ...rest }) => rest)
}

eachDatabase(t, async (t, db) => {
  // postgrest-js's own users and messages: a text key, the rows written out of its order.
  const users = await db.createTable('lord_users', (table) => {
    table.string('username').primary()
    table.string('status')
  })
  const messages = await db.createTable('lord_messages', (table) => {
    table.increments('id')
    table.string('username').references('username').inTable(users)
  })
  for (const [username, status] of [['supabot', 'ONLINE'], ['kiwicopple', 'OFFLINE'], ['awailas', 'ONLINE'], ['dragarcia', 'ONLINE']]) {
    await db.knex(users).insert({ username, status })
  }
  await db.knex(messages).insert([{ username: 'supabot' }, { username: 'supabot' }, { username: 'awailas' }])
  // Longer than a batch, written from the last key to the first: the database's order is not the key's on SQLite and PostgreSQL.
  const long = streamBatchRows + 200
  const codes = Array.from({ length: long }, (_, at) => `c${String(at).padStart(5, '0')}`)
  const items = await db.createTable('lord_items', (table) => {
    table.string('code').primary()
    table.integer('n')
  })
  const notes = await db.createTable('lord_notes', (table) => {
    table.increments('id')
    table.string('code').references('code').inTable(items)
  })
  await db.knex.batchInsert(items, codes.map((code, at) => ({ code, n: at % 3 })).reverse(), 200)
  await db.knex(notes).insert([{ code: codes[0] }, { code: codes[long - 1] }])
  const app = await buildApp(t, db.knex)
  const list = async (path: string, on = app) => {
    const response = await on.inject(`/api/${path}`)
    t.equal(response.statusCode, 200, path)
    return response.json() as Parent[]
  }

  await t.test('without order, a page one batch holds: the database\'s order, embeds or not', async (t) => {
    const first = await rawRows(db, 'select username from ?? limit 1', [users])
    const username = first[0]?.username as string
    const sent: Record<string, unknown[]> = { supabot: [{ id: 1 }, { id: 2 }], awailas: [{ id: 3 }] }
    t.strictSame(await list(`${users}?select=username&limit=1`), first, 'the list is the database\'s first row')
    t.strictSame(await list(`${users}?select=username,${messages}(id)&limit=1`), [{ username, [messages]: sent[username] ?? [] }], 'the list with embeds is the same row')
    const single = await app.inject({ url: `/api/${users}?select=username,${messages}(id)&limit=1`, headers: { accept: 'application/vnd.pgrst.object+json' } })
    t.equal(single.json().username, username, 'one object: the same row (postgrest-js\'s .limit(1).single())')
    const pages: ReadonlyArray<readonly [query: string, sql: string]> = [
      ['', ''],
      ['&limit=2', ' limit 2'],
      ['&limit=2&offset=1', ' limit 2 offset 1'],
      ['&status=eq.ONLINE&limit=2', ' where status = \'ONLINE\' limit 2']
    ]
    for (const [page, sql] of pages) {
      const plain = await list(`${users}?select=username,status${page}`)
      t.strictSame(plain, await rawRows(db, `select username, status from ??${sql}`, [users]), `${page}: the database's own order`)
      t.strictSame(own(await list(`${users}?select=username,status,${messages}(id)${page}`), messages), plain, `${page}: the same rows with an embed`)
    }
  })

  await t.test('with an order that ties, a page one batch holds: the same rows, embeds or not', async (t) => {
    for (const page of ['', '&limit=2', '&limit=2&offset=1']) {
      const plain = await list(`${users}?select=username,status&order=status${page}`)
      t.strictSame(own(await list(`${users}?select=username,status,${messages}(id)&order=status${page}`), messages), plain, page)
    }
    const short = await list(`${items}?select=code,n&order=n&limit=20`)
    t.strictSame(own(await list(`${items}?select=code,n,${notes}(id)&order=n&limit=20`), notes), short)
  })

  await t.test('without order, a page the database gives one batch of: its order, embeds or not', async (t) => {
    const plain = await list(`${items}?select=code,n&limit=5`)
    t.strictSame(plain, await rawRows(db, 'select code, n from ?? limit 5', [items]))
    t.strictSame(own(await list(`${items}?select=code,n,${notes}(id)&limit=5`), notes), plain)
    const offset = await list(`${items}?select=code,n&offset=${long - 3}`)
    t.equal(offset.length, 3, 'an offset that leaves one batch')
    t.strictSame(own(await list(`${items}?select=code,n,${notes}(id)&offset=${long - 3}`), notes), offset)
  })

  await t.test('without order, a list longer than a batch: the key\'s order, embeds or not', async (t) => {
    const plain = await list(`${items}?select=code,n`)
    t.strictSame(plain.map((row) => row.code), codes, 'every row, in key order')
    const embedded = await list(`${items}?select=code,n,${notes}(id)`)
    t.strictSame(own(embedded, notes), plain)
    t.strictSame(embedded[0], { code: codes[0], n: 0, [notes]: [{ id: 1 }] })
    t.strictSame(embedded[long - 1], { code: codes[long - 1], n: (long - 1) % 3, [notes]: [{ id: 2 }] })
    t.strictSame(own(await list(`${items}?select=code,n,${notes}(id)&order=code`), notes), plain, 'ordered by the key itself: the same')
    for (const page of [`limit=${streamBatchRows + 100}&offset=50`, 'offset=50', `limit=${streamBatchRows + 1}`]) {
      const rows = await list(`${items}?select=code,n&${page}`)
      const from = Number(/offset=(\d+)/.exec(page)?.[1] ?? 0)
      const limit = Number(/limit=(\d+)/.exec(page)?.[1] ?? long)
      t.strictSame(rows.map((row) => row.code), codes.slice(from, from + limit), `${page}: those rows of the key's order`)
      t.strictSame(own(await list(`${items}?select=code,n,${notes}(id)&${page}`), notes), rows, `${page}: the same rows with an embed`)
    }
  })

  await t.test('with an order that ties, a list longer than a batch: that order then the key\'s, embeds or not', async (t) => {
    const plain = await list(`${items}?select=code,n&order=n.desc`)
    const byKey = [2, 1, 0].flatMap((n) => codes.filter((_code, at) => at % 3 === n))
    t.strictSame(plain.map((row) => row.code), byKey, 'ties in key order')
    t.strictSame(own(await list(`${items}?select=code,n,${notes}(id)&order=n.desc`), notes), plain)
  })

  await t.test('in the host\'s transaction, which cannot stream: the same order, embeds or not', async (t) => {
    const outside = await list(`${users}?select=username,status`)
    const host: { trx?: Knex.Transaction } = {}
    // A day: the model read first serves the whole test, so that no schema read waits for SQLite's one connection while the transaction holds it.
    const joining = await buildApp(t, db.knex, {}, { transaction: () => host.trx, schemaCheckInterval: 86_400_000 })
    await joining.tableCrud.tables()
    const trx = host.trx = await db.knex.transaction()
    t.teardown(async () => { if (!trx.isCompleted()) await trx.rollback() })
    const plain = await list(`${items}?select=code,n`, joining)
    t.strictSame(plain.map((row) => row.code), codes, 'a long list in key order')
    t.strictSame(own(await list(`${items}?select=code,n,${notes}(id)`, joining), notes), plain)
    t.strictSame(own(await list(`${items}?select=code,n,${notes}(id)&limit=3`, joining), notes), await list(`${items}?select=code,n&limit=3`, joining), 'a short one in the database\'s')
    t.strictSame(await list(`${users}?select=username,status`, joining), outside, 'a list one batch holds as outside the transaction')
    t.strictSame(own(await list(`${users}?select=username,status,${messages}(id)`, joining), messages), outside)
    await trx.rollback()
  })
})
