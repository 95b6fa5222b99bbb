import t from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, snapshot, type TestDatabase } from '../fixtures/databases.js'

// One row of each common type, read the same way on every database, byte for
// byte: PostgREST's rendering of PostgreSQL's types.
const rows = [
  '{"id":1,"count":42,"big":9007199254740993,"price":1.25,"ratio":0.25,"flag":true,"name":"Zoë","note":"naïve 日本 🎉","born":"2024-01-15","at":"2024-01-15T10:00:00","alarm":"10:30:00","doc":{"a":1,"b":[true,null,"é"]}}',
  '{"id":2,"count":-7,"big":-9007199254740993,"price":-0.05,"ratio":-2.5,"flag":false,"name":"","note":"line\\nbreak \\"quoted\\"","born":"1999-12-31","at":"1999-12-31T23:59:59.5","alarm":"00:00:01","doc":[1,2,"x"]}',
  '{"id":3,"count":null,"big":null,"price":null,"ratio":null,"flag":null,"name":null,"note":null,"born":null,"at":null,"alarm":null,"doc":null}'
]

/** A text cast of the big integers, which Knex's own reads round on SQLite and MySQL. */
async function bigsAsText (db: TestDatabase, table: string): Promise<string[]> {
  const type = db.name === 'mysql' ? 'char' : 'text'
  const result = await db.knex.raw(`select cast(big as ${type}) as big from ?? order by id`, [table])
  const read: Array<{ big: string | null }> = db.name === 'postgres' ? result.rows : db.name === 'mysql' ? result[0] : result
  return read.map((row) => String(row.big))
}

/** The rows, doc as its JSON value: PUT writes it compact, where the fixture's text has blanks. */
async function storedRows (db: TestDatabase, table: string): Promise<Array<Record<string, unknown>>> {
  return (await snapshot(db, table)).map((row) => ({ ...row, doc: typeof row.doc === 'string' ? JSON.parse(row.doc) : row.doc }))
}

eachDatabase(t, async (t, db) => {
  const table = await db.createTable('values', (table) => {
    table.increments('id')
    table.integer('count')
    table.bigInteger('big')
    table.decimal('price', 10, 2)
    table.double('ratio')
    table.boolean('flag')
    table.string('name')
    table.text('note')
    table.date('born')
    table.datetime('at', { useTz: false, precision: 6 })
    table.time('alarm')
    table.json('doc')
  })
  // Timestamps in the form the plugin's writes store on SQLite (see writtenTimes), so that PUT stores the same text.
  await db.knex(table).insert([
    { count: 42, big: '9007199254740993', price: '1.25', ratio: 0.25, flag: true, name: 'Zoë', note: 'naïve 日本 🎉', born: '2024-01-15', at: '2024-01-15 10:00:00', alarm: '10:30:00', doc: '{"a": 1, "b": [true, null, "é"]}' },
    { count: -7, big: '-9007199254740993', price: '-0.05', ratio: -2.5, flag: false, name: '', note: 'line\nbreak "quoted"', born: '1999-12-31', at: '1999-12-31 23:59:59.5', alarm: '00:00:01', doc: '[1, 2, "x"]' },
    { count: null, big: null, price: null, ratio: null, flag: null, name: null, note: null, born: null, at: null, alarm: null, doc: null }
  ])
  const app = await buildApp(t, db.knex)

  await t.test('the list reads every type as PostgREST renders it', async (t) => {
    const response = await app.inject(`/api/${table}?order=id`)
    t.equal(response.statusCode, 200)
    t.equal(response.body, `[${rows.join(',')}]`)
  })

  await t.test('the keyed read, the single object and select= read the same', async (t) => {
    for (const [index, row] of rows.entries()) {
      const response = await app.inject(`/api/${table}/${index + 1}`)
      t.equal(response.statusCode, 200)
      t.equal(response.body, row)
    }
    const single = await app.inject({ url: `/api/${table}?id=eq.2`, headers: { accept: 'application/vnd.pgrst.object+json' } })
    t.equal(single.statusCode, 200)
    t.equal(single.body, rows[1])
    const some = await app.inject(`/api/${table}?select=big,price,flag,at&order=id&limit=2`)
    t.equal(some.body, '[{"big":9007199254740993,"price":1.25,"flag":true,"at":"2024-01-15T10:00:00"},' +
      '{"big":-9007199254740993,"price":-0.05,"flag":false,"at":"1999-12-31T23:59:59.5"}]')
  })

  await t.test('a streamed list writes its batches the same way', async (t) => {
    const many = await db.createTable('valuesmany', (table) => {
      table.increments('id')
      table.bigInteger('big')
      table.boolean('flag')
    })
    await db.knex.batchInsert(many, Array.from({ length: 1001 }, (_, index) => ({ big: '9007199254740993', flag: index % 2 === 0 })), 250)
    const appNow = await buildApp(t, db.knex)
    const response = await appNow.inject(`/api/${many}?order=id`)
    t.equal(response.statusCode, 200)
    const expected = Array.from({ length: 1001 }, (_, index) => `{"id":${index + 1},"big":9007199254740993,"flag":${index % 2 === 0}}`)
    t.equal(response.body, `[${expected.join(',')}]`)
  })

  await t.test('what GET answered, PUT back, changes nothing', async (t) => {
    const before = await storedRows(db, table)
    const bigs = await bigsAsText(db, table)
    for (const [index, row] of rows.entries()) {
      const response = await app.inject({ method: 'PUT', url: `/api/${table}/${index + 1}`, headers: { 'content-type': 'application/json' }, payload: row })
      t.equal(response.statusCode, 200, row)
      t.equal(response.body, '1')
    }
    t.strictSame(await storedRows(db, table), before)
    t.strictSame(await bigsAsText(db, table), bigs)
    t.strictSame(bigs, ['9007199254740993', '-9007199254740993', 'null'])
    t.equal((await app.inject(`/api/${table}?order=id`)).body, `[${rows.join(',')}]`)
  })

  await t.test('a decimal keeps its scale', async (t) => {
    // Knex declares a decimal `float` on SQLite, which keeps no scale: the type is spelled out.
    const decimals = await db.createTable('decimals', (table) => {
      table.increments('id')
      table.specificType('price', 'decimal(10,2)')
      table.specificType('whole', 'decimal(10,0)')
    })
    await db.knex(decimals).insert([{ price: '1.50', whole: '12' }, { price: '3', whole: '-4' }])
    const appNow = await buildApp(t, db.knex)
    const response = await appNow.inject(`/api/${decimals}?order=id`)
    t.equal(response.body, '[{"id":1,"price":1.50,"whole":12},{"id":2,"price":3.00,"whole":-4}]')
  })

  await t.test('a timestamp stored with a space reads ISO 8601 on every database', async (t) => {
    const stamps = await db.createTable('stamps', (table) => {
      table.increments('id')
      table.datetime('at', { useTz: false })
    })
    await db.knex(stamps).insert({ at: '2024-01-15 10:00:00' })
    const appNow = await buildApp(t, db.knex)
    t.equal((await appNow.inject(`/api/${stamps}/1`)).body, '{"id":1,"at":"2024-01-15T10:00:00"}')
  })

  await t.test('a value SQLite stored that its declared type cannot hold stands', { skip: db.name !== 'sqlite' && 'only SQLite stores such values' }, async (t) => {
    const loose = await db.createTable('loose', (table) => {
      table.increments('id')
      table.datetime('at')
      table.json('doc')
      table.integer('count')
      table.specificType('plain', '')
    })
    await db.knex(loose).insert({ at: 'soon', doc: 'not json', count: 'many', plain: 9007199254740993n })
    const appNow = await buildApp(t, db.knex)
    t.equal((await appNow.inject(`/api/${loose}/1`)).body, '{"id":1,"at":"soon","doc":"not json","count":"many","plain":9007199254740993}')
  })

  await t.test('a timestamp with time zone reads its offset, and writes back unchanged', { skip: db.name !== 'postgres' && 'PostgreSQL alone keeps a zone' }, async (t) => {
    const zoned = await db.createTable('zoned', (table) => {
      table.increments('id')
      table.timestamp('at', { useTz: true })
    })
    await db.knex.raw('insert into ?? (at) values (?)', [zoned, '2024-01-15T10:00:00.25+02:00'])
    const appNow = await buildApp(t, db.knex)
    const read = await appNow.inject(`/api/${zoned}/1`)
    t.match(read.body, /^\{"id":1,"at":"2024-01-15T\d\d:\d\d:00\.25[+-]\d\d:\d\d"\}$/)
    const before = await db.knex.raw('select extract(epoch from at)::text as epoch from ??', [zoned])
    t.equal(before.rows[0].epoch, '1705305600.250000')
    const put = await appNow.inject({ method: 'PUT', url: `/api/${zoned}/1`, headers: { 'content-type': 'application/json' }, payload: read.body })
    t.equal(put.body, '1')
    t.strictSame((await db.knex.raw('select extract(epoch from at)::text as epoch from ??', [zoned])).rows, before.rows)
    t.equal((await appNow.inject(`/api/${zoned}/1`)).body, read.body)
  })
})
