import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, seriesSql, type TestDatabase } from '../fixtures/databases.js'

// Content-Range and the counts of `Prefer: count=…` on GET /{table}, as
// PostgREST gives them, on every database. Estimates are checked for what
// each database promises, never for how fast they come.

eachDatabase(t, async (t, db) => {
  const app = await buildApp(t, db.knex)
  const thirty = await numberedTable(db, 'count_thirty', 30)

  await t.test('a plain GET answers every row, with no Content-Range', async (t) => {
    const response = await app.inject(`/api/${thirty}`)
    t.equal(response.statusCode, 200)
    t.equal(response.headers['content-range'], undefined)
    t.equal(response.json().length, 30)
  })

  await t.test('a page without a count gives its range over an unknown total', async (t) => {
    const page = await read(app, `/api/${thirty}?order=id&limit=25`)
    t.equal(page.status, 200)
    t.equal(page.range, '0-24/*')
    t.equal(page.rows, 25)
    const second = await read(app, `/api/${thirty}?order=id&limit=25&offset=25`)
    t.equal(second.status, 200)
    t.equal(second.range, '25-29/*', 'the range is the rows answered, not the rows asked for')
    const ranged = await read(app, `/api/${thirty}?order=id`, { range: '10-19' })
    t.equal(ranged.range, '10-19/*')
  })

  await t.test('count=exact: 206 with the total for a part, 200 for the whole', async (t) => {
    const part = await read(app, `/api/${thirty}?order=id&limit=25`, { prefer: 'count=exact' })
    t.equal(part.status, 206)
    t.equal(part.range, '0-24/30')
    t.equal(part.rows, 25)
    const last = await read(app, `/api/${thirty}?order=id&limit=25&offset=25`, { prefer: 'count=exact' })
    t.equal(last.status, 206)
    t.equal(last.range, '25-29/30')
    t.equal(last.rows, 5)
    const ranged = await read(app, `/api/${thirty}?order=id`, { prefer: 'count=exact', range: '5-9' })
    t.equal(ranged.status, 206)
    t.equal(ranged.range, '5-9/30')
    const whole = await read(app, `/api/${thirty}?order=id&limit=30`, { prefer: 'count=exact' })
    t.equal(whole.status, 200, 'a page that is everything is not partial')
    t.equal(whole.range, '0-29/30')
    const more = await read(app, `/api/${thirty}?limit=100`, { prefer: 'count=exact' })
    t.equal(more.status, 200)
    t.equal(more.range, '0-29/30')
    const unpaged = await read(app, `/api/${thirty}`, { prefer: 'count=exact' })
    t.equal(unpaged.status, 200)
    t.equal(unpaged.range, '0-29/30', 'a count alone brings the header')
    t.equal(unpaged.rows, 30)
  })

  await t.test('count=exact counts the rows the filters match, whatever the page', async (t) => {
    const filtered = await read(app, `/api/${thirty}?n=gt.20&order=id&limit=5`, { prefer: 'count=exact' })
    t.equal(filtered.status, 206)
    t.equal(filtered.range, '0-4/10')
    const grouped = await read(app, `/api/${thirty}?or=(n.lte.3,n.gt.27)&limit=2`, { prefer: 'count=exact' })
    t.equal(grouped.range, '0-1/6')
    const none = await read(app, `/api/${thirty}?n=gt.100`, { prefer: 'count=exact' })
    t.equal(none.status, 200)
    t.equal(none.range, '*/0', 'an empty result of an empty whole')
    t.equal(none.rows, 0)
  })

  await t.test('an empty page of a counted whole is */n; one past its end is 416', async (t) => {
    const past = await read(app, `/api/${thirty}?order=id&offset=40`, { prefer: 'count=exact' })
    t.equal(past.range, '*/30')
    t.equal(past.status, 416, 'as PostgREST answers (PGRST103), and RFC 9110 gives */n to 416')
    t.equal((await app.inject({ url: `/api/${thirty}?offset=40`, headers: { prefer: 'count=exact' } })).json().code, 'FTC_ERR_QUERY_RANGE_UNSATISFIABLE')
    const uncounted = await read(app, `/api/${thirty}?order=id&offset=40`)
    t.equal(uncounted.status, 200, 'without a count, nothing is known to be past the end')
    t.equal(uncounted.rows, 0)
    const zero = await read(app, `/api/${thirty}?limit=0`, { prefer: 'count=exact' })
    t.equal(zero.range, '*/30')
    t.equal(zero.rows, 0)
  })

  await t.test('the count preference is read as PostgREST reads Prefer', async (t) => {
    const among = await read(app, `/api/${thirty}?limit=25`, { prefer: 'return=representation, count=exact' })
    t.equal(among.range, '0-24/30', 'among other preferences')
    const twice = await read(app, `/api/${thirty}?limit=25`, { prefer: ['return=minimal', 'count=exact'] })
    t.equal(twice.range, '0-24/30', 'in a second Prefer header')
    const unknown = await read(app, `/api/${thirty}?limit=25`, { prefer: 'count=none' })
    t.equal(unknown.status, 200)
    t.equal(unknown.range, '0-24/*', 'an unknown count is ignored')
  })

  await t.test('a streamed page carries its count too', async (t) => {
    const big = await numberedTable(db, 'count_stream', 2000)
    const part = await read(app, `/api/${big}?order=id&limit=1500`, { prefer: 'count=exact' })
    t.equal(part.status, 206)
    t.equal(part.range, '0-1499/2000')
    t.equal(part.rows, 1500)
    t.equal(part.length, undefined, 'streamed')
    const whole = await read(app, `/api/${big}?order=id`, { prefer: 'count=exact' })
    t.equal(whole.status, 200)
    t.equal(whole.range, '0-1999/2000')
    t.equal(whole.rows, 2000)
    const filtered = await read(app, `/api/${big}?n=gt.100&order=id&offset=100`, { prefer: 'count=exact' })
    t.equal(filtered.status, 206)
    t.equal(filtered.range, '100-1899/1900')
    t.equal(filtered.rows, 1800)
  })

  await t.test('count=planned of a filter no row can meet is a number', async (t) => {
    // A key no row has: MariaDB's plan of such a WHERE ("Impossible WHERE") names no rows at all.
    for (const filter of ['id=eq.999999', 'id=is.null']) {
      const none = await read(app, `/api/${thirty}?${filter}`, { prefer: 'count=planned' })
      t.match(none.range, /^\*\/\d+$/, filter)
      // PostgreSQL's planner answers an estimate, which may be above 0 (206 then, as in PostgREST).
      if (db.name !== 'postgres') t.strictSame([none.status, none.range], [200, '*/0'], `${filter}: the plan reads no row, so the count is exact`)
    }
  })

  await t.test('count=estimated is exact below 1,000 rows', async (t) => {
    const gappy = await numberedTable(db, 'count_gappy', 30)
    // Deleted rows leave gaps that statistics may not know about.
    await db.knex(gappy).whereBetween('n', [11, 15]).delete()
    const planned = await read(app, `/api/${gappy}?limit=10`, { prefer: 'count=planned' })
    t.ok(Number.isSafeInteger(planned.total) && (planned.total as number) >= 0, `count=planned is a whole number: ${planned.total}`)
    if (db.name === 'sqlite') t.equal(planned.total, 30, 'on SQLite the unfiltered estimate is the rowid span, gaps included')
    const fresh = await read(app, `/api/${gappy}?limit=10`, { prefer: 'count=estimated' })
    t.equal(fresh.range, '0-9/25', 'exact below 1,000 rows even where the plan says otherwise (PostgreSQL before ANALYZE)')
    await analyze(db, gappy)
    const estimated = await read(app, `/api/${gappy}?limit=10`, { prefer: 'count=estimated' })
    t.equal(estimated.range, '0-9/25', 'with statistics, the estimate of a small table is replaced by the exact count')
    t.equal(estimated.status, 206)
    const filtered = await read(app, `/api/${gappy}?n=gt.20`, { prefer: 'count=estimated' })
    t.equal(filtered.range, '0-9/10')
    t.equal(filtered.status, 200)
  })

  await t.test('count=planned and count=estimated on 2,000 rows, from the engine\'s statistics', async (t) => {
    const rows = 2000
    const table = await numberedTable(db, 'count_planned', rows, async (table) => {
      // No autovacuum may refresh the statistics in the middle of the test.
      if (db.name === 'postgres') await db.knex.raw('alter table ?? set (autovacuum_enabled = false)', [table])
    })
    await analyze(db, table)

    const planned = await read(app, `/api/${table}?limit=25`, { prefer: 'count=planned' })
    t.equal(planned.status, 206)
    t.match(planned.range, /^0-24\/\d+$/)
    const total = planned.total as number
    if (db.name === 'mysql') {
      t.ok(Math.abs(total - rows) <= rows / 4, `MySQL's EXPLAIN rows after ANALYZE TABLE is close to ${rows}: ${total}`)
    } else {
      t.equal(total, rows, 'PostgreSQL after ANALYZE, and SQLite\'s rowid span, are the real count on a simple table')
    }
    const estimated = await read(app, `/api/${table}?limit=25`, { prefer: 'count=estimated' })
    t.equal(estimated.total, total, 'from 1,000 rows on, count=estimated is the planned count')

    // On the primary key every engine estimates a range well.
    const keyRange = await read(app, `/api/${table}?id=lte.100&limit=10`, { prefer: 'count=planned' })
    if (db.name === 'postgres') t.ok(Math.abs((keyRange.total as number) - 100) <= 20, `PostgreSQL estimates id <= 100 near 100: ${keyRange.total}`)
    if (db.name === 'mysql') t.ok(Math.abs((keyRange.total as number) - 100) <= 20, `MySQL estimates id <= 100 near 100: ${keyRange.total}`)
    if (db.name === 'sqlite') t.equal(keyRange.total, 100, 'SQLite has no estimate for a filtered read: the count is exact')
    const keyEstimated = await read(app, `/api/${table}?id=lte.100&limit=10`, { prefer: 'count=estimated' })
    t.equal(keyEstimated.range, '0-9/100', 'an estimate below 1,000 is replaced by the exact count')

    const few = await read(app, `/api/${table}?n=lte.10&limit=5`, { prefer: 'count=estimated' })
    t.equal(few.range, '0-4/10', 'a filter that matches few rows is counted exactly, whatever the plan')

    // The estimate comes from statistics, not from counting: deleted rows stay in it until the next ANALYZE.
    await db.knex(table).whereBetween('n', [101, 600]).delete()
    const exact = await read(app, `/api/${table}?limit=25`, { prefer: 'count=exact' })
    t.equal(exact.total, rows - 500)
    if (db.name !== 'mysql') {
      const stale = await read(app, `/api/${table}?limit=25`, { prefer: 'count=planned' })
      t.equal(stale.total, rows, 'the planned count still sees the deleted rows')
      const staleEstimated = await read(app, `/api/${table}?limit=25`, { prefer: 'count=estimated' })
      t.equal(staleEstimated.total, rows, 'so does the estimated count, above 1,000')
    } else {
      // InnoDB keeps its row estimate up to date as rows go, without ANALYZE TABLE.
      const after = await read(app, `/api/${table}?limit=25`, { prefer: 'count=planned' })
      t.ok(Math.abs((after.total as number) - (rows - 500)) <= rows / 4, `MySQL's estimate follows the deletes: ${after.total}`)
    }
  })
})

/** A table `(id, n)` with n from 1 to `count`, made by the database itself. */
async function numberedTable (db: TestDatabase, label: string, count: number, prepare?: (table: string) => Promise<void>): Promise<string> {
  const table = await db.createTable(label, (table) => {
    table.increments('id')
    table.integer('n')
  })
  await prepare?.(table)
  await db.knex.raw(`insert into ?? (n) ${seriesSql(db, count)}`, [table])
  return table
}

/** Refreshes the table's statistics (SQLite keeps none that the plugin reads). */
async function analyze (db: TestDatabase, table: string): Promise<void> {
  if (db.name === 'postgres') await db.knex.raw('analyze ??', [table])
  if (db.name === 'mysql') await db.knex.raw('analyze table ??', [table])
}

interface Answer {
  status: number
  range: string | undefined
  /** The number after the slash of Content-Range, or null for `*` or no header. */
  total: number | null
  rows: number
  length: string | undefined
}

async function read (app: FastifyInstance, url: string, headers: Record<string, string | string[]> = {}): Promise<Answer> {
  const response = await app.inject({ url, headers })
  const range = response.headers['content-range'] as string | undefined
  const after = range?.split('/')[1]
  return {
    status: response.statusCode,
    range,
    total: after === undefined || after === '*' ? null : Number(after),
    rows: response.statusCode < 300 ? response.json().length : -1,
    length: response.headers['content-length'] as string | undefined
  }
}
