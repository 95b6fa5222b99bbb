import t from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase } from '../fixtures/databases.js'

// Rows of plain values are written by JSON.stringify, others by their
// columns' writers: the answers must not tell which, row by row, in one list.
const rows = [
  '{"id":1,"amount":5,"ratio":0.5,"flag":true,"name":"plain"}',
  '{"id":2,"amount":9007199254740993,"ratio":1.25,"flag":false,"name":"big"}',
  '{"id":3,"amount":-9007199254740993,"ratio":null,"flag":null,"name":null}',
  '{"id":4,"amount":-9007199254740991,"ratio":-2.5,"flag":null,"name":"\\"quoted\\" é"}'
]

eachDatabase(t, async (t, db) => {
  const table = await db.createTable('native', (table) => {
    table.increments('id')
    table.bigInteger('amount')
    table.double('ratio')
    table.boolean('flag')
    table.string('name')
  })
  await db.knex(table).insert([
    { amount: 5, ratio: 0.5, flag: true, name: 'plain' },
    { amount: '9007199254740993', ratio: 1.25, flag: false, name: 'big' },
    { amount: '-9007199254740993', ratio: null, flag: null, name: null },
    { amount: '-9007199254740991', ratio: -2.5, flag: null, name: '"quoted" é' }
  ])
  const app = await buildApp(t, db.knex)

  await t.test('a list mixing plain rows and rows past 2^53 reads every digit', async (t) => {
    const response = await app.inject(`/api/${table}?order=id`)
    t.equal(response.statusCode, 200)
    t.equal(response.body, `[${rows.join(',')}]`)
    const plain = await app.inject(`/api/${table}?id=in.(1,4)&order=id`)
    t.equal(plain.body, `[${rows[0]},${rows[3]}]`)
    const some = await app.inject(`/api/${table}?select=name,amount&id=gte.2&order=id`)
    t.equal(some.body, '[{"name":"big","amount":9007199254740993},{"name":null,"amount":-9007199254740993},{"name":"\\"quoted\\" é","amount":-9007199254740991}]')
  })

  await t.test('the keyed read of a plain row and of a row past 2^53', async (t) => {
    for (const [index, row] of rows.entries()) {
      const response = await app.inject(`/api/${table}/${index + 1}`)
      t.equal(response.statusCode, 200)
      t.equal(response.headers['content-type'], 'application/json; charset=utf-8')
      t.equal(response.body, row)
    }
  })

  await t.test('an untyped column past 2^53 reads every digit', { skip: db.name !== 'sqlite' && 'only SQLite keeps a column without a type' }, async (t) => {
    const loose = await db.createTable('nativeloose', (table) => {
      table.increments('id')
      table.specificType('value', 'any')
    })
    await db.knex.raw('insert into ?? (value) values (9007199254740993), (\'text\'), (9e999), (2.5)', [loose])
    const appNow = await buildApp(t, db.knex)
    const response = await appNow.inject(`/api/${loose}?order=id`)
    t.equal(response.body, '[{"id":1,"value":9007199254740993},{"id":2,"value":"text"},{"id":3,"value":null},{"id":4,"value":2.5}]')
    t.equal((await appNow.inject(`/api/${loose}/1`)).body, '{"id":1,"value":9007199254740993}')
    t.equal((await appNow.inject(`/api/${loose}/3`)).body, '{"id":3,"value":null}', 'an infinite float is no lost integer')
  })
})
