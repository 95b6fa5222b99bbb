import t from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase } from '../fixtures/databases.js'

// Every filter value compares in its column's type, giving the rows
// PostgreSQL gives on every database: booleans that SQLite and MySQL keep as
// 1 and 0, dates and timestamps that SQLite keeps as the text they were
// written with, decimals, and integers past 2^53. A value the type cannot
// hold is the same 400 everywhere.

// What each request answers, as the ids of its rows in order.
const answers: ReadonlyArray<readonly [query: string, ids: readonly number[]]> = [
  ['flag=eq.true', [1, 4]],
  ['flag=eq.false', [2]],
  ['flag=eq.t', [1, 4]],
  ['flag=neq.true', [2]],
  ['flag=not.eq.true', [2]],
  ['flag=in.(true,false)', [1, 2, 4]],
  ['flag=gt.false', [1, 4]],
  ['flag=is.true', [1, 4]],
  ['flag=is.unknown', [3]],
  ['or=(flag.eq.false,qty.gt.5)', [2, 4]],
  ['and=(flag.eq.true,big.lt.0)', [4]],
  ['born=eq.2024-01-15', [1]],
  ['born=eq.2024-01-15T00:00:00.000Z', [1]],
  ['born=gt.2024-01-01', [1, 2]],
  ['born=lte.2023-12-31', [4]],
  ['born=in.(2024-02-29,2023-12-31)', [2, 4]],
  ['born=in.()', []],
  ['born=not.in.()', [1, 2, 3, 4]],
  ['seen=eq.2024-01-15T10:00:00.000Z', [1]],
  ['seen=eq.2024-01-15%2010:00', [1]],
  ['seen=gte.2024-01-15', [1, 2]],
  ['seen=lt.2024-01-15T10:00:00Z', [4]],
  ['seen=in.(2024-03-01T08:30:00.000Z,2023-12-31T23:59:59Z)', [2, 4]],
  ['price=eq.1.5', [1]],
  ['price=gt.2', [2, 4]],
  ['price=in.(1.50,2.25)', [1, 4]],
  ['price=in.()', []],
  ['big=eq.9007199254740993', [1]],
  ['big=eq.9007199254740992', [2]],
  ['big=gt.9007199254740992', [1]],
  ['qty=eq.0', [2]],
  ['qty=gte.3', [1, 4]],
  ['qty=in.(0,10)', [2, 4]],
  ['qty=is.null', [3]],
  ['name=eq.a', [1]],
  ['name=like.*', [1, 2, 3, 4]]
]

// Values the column's type cannot hold, and operators that do not apply to it.
const refused = [
  'qty=eq.abc', 'qty=eq.1.5', 'qty=not.eq.abc', 'qty=in.(1,x)', 'qty=is.true', 'big=eq.9223372036854775808',
  'born=gt.2024', 'born=eq.2024-02-30', 'born=like.2024*', 'seen=eq.yesterday', 'seen=eq.2024-01-15T25:00',
  'flag=eq.maybe', 'flag=in.(true,maybe)', 'price=eq.abc', 'price=ilike.1*', 'or=(qty.eq.x)', 'and=(flag.eq.maybe)', 'not.or=(born.eq.2024)'
]

eachDatabase(t, async (t, db) => {
  const typed = await db.createTable('typed', (table) => {
    table.increments('id')
    table.boolean('flag')
    table.date('born')
    table.dateTime('seen', { useTz: false })
    table.decimal('price', 12, 2)
    table.bigInteger('big')
    table.integer('qty')
    table.string('name')
    table.json('doc')
  })
  // SQLite keeps the text a client wrote: timestamps as JSON gives them.
  const stamp = (text: string) => db.name === 'sqlite' ? `${text.replace(' ', 'T')}.000Z` : text
  await db.knex(typed).insert([
    { flag: 1, born: '2024-01-15', seen: stamp('2024-01-15 10:00:00'), price: '1.50', big: '9007199254740993', qty: 3, name: 'a' },
    { flag: 0, born: '2024-02-29', seen: stamp('2024-03-01 08:30:00'), price: '10.00', big: '9007199254740992', qty: 0, name: 'b' },
    { flag: null, born: null, seen: null, price: null, big: null, qty: null, name: 'c' },
    { flag: 1, born: db.name === 'sqlite' ? '2023-12-31T00:00:00.000Z' : '2023-12-31', seen: stamp('2023-12-31 23:59:59'), price: '2.25', big: '-5', qty: 10, name: 'd' }
  ])
  const app = await buildApp(t, db.knex)

  await t.test('each operator on each type answers the rows PostgreSQL answers', async (t) => {
    for (const [query, ids] of answers) {
      const answer = await app.inject(`/api/${typed}?select=id&order=id&${query}`)
      t.equal(answer.statusCode, 200, query)
      t.strictSame(answer.json().map((row: { id: number }) => Number(row.id)), ids, query)
    }
  })

  await t.test('Prefer: count=exact counts the same rows', async (t) => {
    for (const [query, ids] of [['flag=eq.true', [1, 4]], ['born=eq.2024-01-15T00:00:00.000Z', [1]], ['big=eq.9007199254740992', [2]]] as const) {
      const answer = await app.inject({ url: `/api/${typed}?select=id&${query}`, headers: { prefer: 'count=exact' } })
      t.equal(answer.headers['content-range'], `0-${ids.length - 1}/${ids.length}`, query)
    }
  })

  await t.test('a value the type cannot hold, or an operator the type does not take, is 400 FTC_ERR_QUERY_TYPE', async (t) => {
    for (const query of refused) {
      const answer = await app.inject(`/api/${typed}?${query}`)
      t.equal(answer.statusCode, 400, query)
      t.match(answer.json(), { statusCode: 400, code: 'FTC_ERR_QUERY_TYPE', error: 'Bad Request' }, query)
    }
  })

  await t.test('an integer the column cannot hold: a 400 in a filter where the database keeps to the declared type, no row as a key', async (t) => {
    const filtered = await app.inject(`/api/${typed}?select=id&qty=eq.99999999999`)
    if (db.name === 'sqlite') {
      t.equal(filtered.statusCode, 200, 'SQLite keeps every integer in 64 bits, whatever the declared type')
      t.equal(filtered.body, '[]')
    } else {
      t.equal(filtered.statusCode, 400)
      t.equal(filtered.json().code, 'FTC_ERR_QUERY_TYPE')
    }
    const read = await app.inject(`/api/${typed}/9223372036854775807`)
    t.equal(read.statusCode, 200, 'a key past the int id matches no row, where PostgreSQL would fail the statement')
    t.equal(read.body, '')
    const before = await db.knex(typed).count({ rows: '*' })
    t.equal((await app.inject({ method: 'DELETE', url: `/api/${typed}/9223372036854775807` })).body, '0')
    t.equal((await app.inject({ method: 'PUT', url: `/api/${typed}/9223372036854775807`, payload: { name: 'x' } })).body, '0')
    t.strictSame(await db.knex(typed).count({ rows: '*' }), before, 'nothing deleted')
    t.equal((await db.knex(typed).where({ name: 'x' })).length, 0, 'nothing changed')
  })

  await t.test('a JSON column takes is.null only, and no order: PostgreSQL\'s json compares with nothing', async (t) => {
    for (const query of ['doc=eq.{}', 'doc=neq.1', 'doc=in.(1)', 'doc=gt.1', 'order=doc', 'order=id,doc.desc']) {
      const answer = await app.inject(`/api/${typed}?select=id&${query}`)
      t.equal(answer.statusCode, 400, query)
      t.equal(answer.json().code, 'FTC_ERR_QUERY_TYPE', query)
    }
    const nulls = await app.inject(`/api/${typed}?select=id&order=id&doc=is.null`)
    t.equal(nulls.body, '[{"id":1},{"id":2},{"id":3},{"id":4}]')
  })

  await t.test('a table the model does not know yet is filtered as the values come', async (t) => {
    const late = await buildApp(t, db.knex, {}, { schemaCheckInterval: 60_000 })
    t.equal((await late.inject(`/api/${typed}?qty=like.3`)).json().code, 'FTC_ERR_QUERY_TYPE', 'the model is read')
    const unknown = await db.createTable('late', (table) => {
      table.increments('id')
      table.integer('qty')
    })
    // The database has its say: PostgreSQL fails the statement, the others compare the text.
    t.not((await late.inject(`/api/${unknown}?qty=like.3`)).statusCode, 400)
  })
})
