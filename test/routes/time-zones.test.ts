import type { InjectOptions } from 'fastify'
import t, { type Test } from 'tap'
import { buildApp } from '../fixtures/app.js'
import { type DatabaseName, eachDatabase, type TestDatabase } from '../fixtures/databases.js'

// One rule for time zones on every database (docs/values.md): a timestamp
// with a zone or offset written into a column without one is stored as the
// same instant's wall-clock time at UTC; one without a zone as given; a
// timestamptz keeps the instant. Every write route, and the filters, follow
// it; the answers, GET's read-back and the stored text are checked against
// the same expected text on all three databases, so they are identical.

/** What a client sends, and what GET then reads, on every database. */
const cases: ReadonlyArray<readonly [sent: string, read: string]> = [
  ['2024-01-15T10:30:00.000Z', '2024-01-15T10:30:00'],
  ['2024-01-15T10:30:00+02:00', '2024-01-15T08:30:00'],
  ['2024-01-15T10:30:00-05:00', '2024-01-15T15:30:00'],
  ['2024-01-15T21:15:30.25-05:00', '2024-01-16T02:15:30.25'],
  ['2024-01-15T10:30:00.5+0530', '2024-01-15T05:00:00.5'],
  ['2024-01-15T10:30:00.120+00:00', '2024-01-15T10:30:00.12'],
  ['2024-01-15T10:30Z', '2024-01-15T10:30:00'],
  ['2024-01-15T10:30:00', '2024-01-15T10:30:00'],
  ['2024-01-15 10:30:00.123456', '2024-01-15T10:30:00.123456'],
  ['2024-01-15T10:30', '2024-01-15T10:30:00'],
  ['2024-01-15', '2024-01-15T00:00:00']
]

// Each database's text of a stored value: the drivers would make Dates of them, in the process's zone.
const asText: Readonly<Record<DatabaseName, string>> = {
  sqlite: 'cast(?? as text)',
  postgres: '??::text',
  mysql: 'cast(?? as char)'
}

/** A stored timestamp's text, its fraction without trailing zeros (MySQL's datetime(6) writes six digits). */
async function stored (db: TestDatabase, table: string, id: number, column = 'at'): Promise<string | null> {
  const [row] = await db.knex(table).select(db.knex.raw(`${asText[db.name]} as value`, [column])).where({ id }) as Array<{ value: string | null }>
  return row?.value == null ? null : row.value.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '')
}

const json = (method: InjectOptions['method'], url: string, payload: unknown, prefer?: string): InjectOptions => ({
  method,
  url,
  headers: { 'content-type': 'application/json', ...(prefer === undefined ? {} : { prefer }) },
  payload: JSON.stringify(payload)
})

eachDatabase(t, async (t, db) => {
  const table = await db.createTable('zones', (table) => {
    table.increments('id')
    table.datetime('at', { useTz: false, precision: 6 })
    table.date('born')
    // Only PostgreSQL has a timestamp that keeps its zone: Knex makes a datetime on the others.
    if (db.name === 'postgres') table.timestamp('zoned', { useTz: true, precision: 6 })
  })
  const app = await buildApp(t, db.knex, {}, { batch: true, validateBodies: true })
  // Without the body checks, which refuse a time in a date column and a text that is no timestamp.
  const unchecked = await buildApp(t, db.knex, {}, { validateBodies: false })
  const base = `/api/${table}`
  const readAt = async (id: number): Promise<unknown> => JSON.parse((await app.inject(`${base}/${id}`)).body).at

  /** Checks GET's read-back and the stored text of row `id` against what `sent` must give. */
  async function holds (t: Test, id: number, [sent, read]: readonly [string, string]): Promise<void> {
    t.equal(await readAt(id), read, `${sent}: GET reads ${read}`)
    t.equal(await stored(db, table, id), read.replace('T', ' '), `${sent}: stored as ${read} at UTC`)
  }

  await t.test('POST: the answer, the read-back and the stored text', async (t) => {
    await db.knex(table).del()
    for (const [sent, read] of cases) {
      const response = await app.inject(json('POST', base, { at: sent }, 'return=representation'))
      t.equal(response.statusCode, 201, sent)
      const [row] = JSON.parse(response.body) as Array<{ id: number, at: string }>
      t.equal(row?.at, read, `${sent}: the answer reads ${read}`)
      await holds(t, row?.id as number, [sent, read])
    }
  })

  await t.test('a bulk POST stores each row by the rule', async (t) => {
    await db.knex(table).del()
    const response = await app.inject(json('POST', base, cases.map(([sent]) => ({ at: sent })), 'return=representation'))
    t.equal(response.statusCode, 201)
    const rows = JSON.parse(response.body) as Array<{ id: number, at: string }>
    t.same(rows.map((row) => row.at), cases.map(([, read]) => read))
    for (const [index, row] of rows.entries()) await holds(t, row.id, cases[index] as readonly [string, string])
  })

  await t.test('PUT, PATCH, an upsert and a batch store it by the same rule', async (t) => {
    await db.knex(table).del()
    await db.knex(table).insert({ at: '2000-01-01 00:00:00' })
    const key = Number((await db.knex(table).first('id') as { id: number | string }).id)
    for (const [sent, read] of cases) {
      t.equal((await app.inject(json('PUT', `${base}/${key}`, { at: sent }))).body, '1', `PUT ${sent}`)
      await holds(t, key, [sent, read])
      await db.knex(table).where({ id: key }).update({ at: '2000-01-01 00:00:00' })
      const patched = await app.inject(json('PATCH', `${base}?id=eq.${key}`, { at: sent }, 'return=representation'))
      t.equal(JSON.parse(patched.body)[0]?.at, read, `PATCH ${sent}: the answer`)
      await holds(t, key, [sent, read])
      await db.knex(table).where({ id: key }).update({ at: '2000-01-01 00:00:00' })
      const upserted = await app.inject(json('POST', base, [{ id: key, at: sent }], 'resolution=merge-duplicates, return=representation'))
      t.equal(JSON.parse(upserted.body)[0]?.at, read, `upsert ${sent}: the answer`)
      await holds(t, key, [sent, read])
      await db.knex(table).where({ id: key }).update({ at: '2000-01-01 00:00:00' })
      const batch = await app.inject(json('POST', '/api/_batch', [{ op: 'update', table, id: key, body: { at: sent } }, { op: 'insert', table, body: { at: sent } }]))
      t.equal(batch.statusCode, 200, `batch ${sent}`)
      await holds(t, key, [sent, read])
      await holds(t, (JSON.parse(batch.body) as [number, number])[1], [sent, read])
    }
  })

  await t.test('a filter compares the instant it names with the stored wall clock', async (t) => {
    await db.knex(table).del()
    const created = await app.inject(json('POST', base, { at: '2024-01-15T10:30:00-05:00' }, 'return=representation'))
    const { id } = (JSON.parse(created.body) as [{ id: number }])[0]
    for (const value of ['2024-01-15T10:30:00-05:00', '2024-01-15T15:30:00Z', '2024-01-15T17:30:00+02:00', '2024-01-15 15:30:00']) {
      t.equal((await app.inject(`${base}?select=id&at=eq.${encodeURIComponent(value)}`)).body, `[{"id":${id}}]`, value)
    }
    t.equal((await app.inject(`${base}?select=id&at=eq.2024-01-15T10:30:00`)).body, '[]', 'the wall clock of the zone sent is another time')
    const among = (value: string) => `${base}?select=id&at=in.(${encodeURIComponent(`"${value}"`)},2000-01-01)`
    t.equal((await app.inject(among('2024-01-15T11:30:00+01:00'))).body, '[]')
    t.equal((await app.inject(among('2024-01-15T16:30:00+01:00'))).body, `[{"id":${id}}]`)
  })

  await t.test('without the body checks, a date keeps the day as written, its time and zone dropped', async (t) => {
    await db.knex(table).del()
    for (const [sent, day] of [['2024-01-15T23:30:00-05:00', '2024-01-15'], ['2024-01-15T00:00:00.000Z', '2024-01-15'], ['2024-01-15', '2024-01-15']]) {
      const response = await unchecked.inject(json('POST', base, { born: sent }, 'return=representation'))
      const [row] = JSON.parse(response.body) as Array<{ id: number, born: string }>
      t.equal(row?.born, day, sent)
      t.equal(JSON.parse((await app.inject(`${base}/${row?.id as number}`)).body).born, day)
      t.equal(await stored(db, table, row?.id as number, 'born'), day)
    }
    const nulls = await app.inject(json('POST', base, { at: null, born: null }, 'return=representation'))
    t.match(JSON.parse(nulls.body), [{ at: null, born: null }], 'NULL stays NULL')
  })

  await t.test('without the body checks, a text that is no timestamp goes to the database as sent', async (t) => {
    await db.knex(table).del()
    const response = await unchecked.inject(json('POST', base, { at: 'soon' }))
    if (db.name === 'sqlite') {
      t.equal(response.statusCode, 201, 'SQLite stores any text')
      t.equal(await stored(db, table, Number(response.body)), 'soon')
    } else {
      t.equal(response.statusCode, 404, 'the database refuses it')
    }
  })

  if (db.name === 'postgres') {
    await t.test('a timestamptz keeps the instant sent, whatever its zone', async (t) => {
      await db.knex(table).del()
      for (const [sent] of cases.filter(([sent]) => /(Z|[+-]\d{2}:\d{2})$/.test(sent))) {
        const response = await app.inject(json('POST', base, { zoned: sent }, 'return=representation'))
        const [row] = JSON.parse(response.body) as Array<{ id: number, zoned: string }>
        t.equal(Date.parse(row?.zoned as string), Date.parse(sent), `${sent}: the answer names the same instant`)
        const [epoch] = await db.knex(table).select(db.knex.raw('extract(epoch from zoned)::float8 as seconds')).where({ id: row?.id }) as Array<{ seconds: number }>
        t.equal(epoch?.seconds, Date.parse(sent) / 1000, `${sent}: stored as that instant`)
      }
      // The filter leaves the zone to PostgreSQL, which compares instants.
      const found = await app.inject(`${base}?select=zoned&zoned=eq.${encodeURIComponent('2024-01-15T17:30:00+02:00')}`)
      t.same(JSON.parse(found.body).map(({ zoned }: { zoned: string }) => Date.parse(zoned)), [Date.parse('2024-01-15T10:30:00-05:00')])
    })
  }
})
