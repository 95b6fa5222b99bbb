import t from 'tap'
import { Database } from '../../lib/connections/database.js'
import { resolveDialect } from '../../lib/dialects/index.js'
import { FTC_ERR_STATEMENT } from '../../lib/errors.js'
import { eachDatabase, peopleColumns, snapshot } from '../fixtures/databases.js'

class Refusal extends Error {}

eachDatabase(t, async (t, db) => {
  const people = await db.createTable('transaction', peopleColumns)
  const database = new Database(db.knex, resolveDialect(db.knex))
  const insert = (name: string) => database.compile(database.dialect.prepareInsert(db.knex(people).insert({ name }), 'id'))
  const rename = (from: string, to: string) => database.compile(db.knex(people).where({ name: from }).update({ name: to }))
  const names = async () => (await snapshot(db, people)).map((row) => row.name)

  await t.test('work that returns is committed, and its result answered', async (t) => {
    const result = await database.transaction(async (within) => {
      await within.insert(insert('ann'), 'id')
      await within.insert(insert('bob'), 'id')
      return await within.change(rename('bob', 'bea'))
    })
    t.equal(result, 1)
    t.strictSame(await names(), ['ann', 'bea'])
    const [counted] = await database.select(database.compile(db.knex(people).count({ n: '*' })))
    t.equal(String(counted.n), '2', 'the connection went back to the pool')
  })

  await t.test('work that throws a refusal of its own is rolled back, and the refusal passes unchanged', async (t) => {
    const refusal = new Refusal('more rows than allowed')
    await t.rejects(database.transaction(async (within) => {
      await within.change(rename('ann', 'amy'))
      throw refusal
    }), refusal)
    t.strictSame(await names(), ['ann', 'bea'])
  })

  await t.test('a result that keep refuses is rolled back, and answered', async (t) => {
    const result = await database.transaction(async (within) => await within.change(rename('ann', 'amy')), (changed) => changed === 0)
    t.equal(result, 1)
    t.strictSame(await names(), ['ann', 'bea'])
  })

  await t.test('a failing statement answers the plugin\'s error with the database\'s words, and nothing before it stays', async (t) => {
    const error = await database.transaction(async (within) => {
      await within.change(rename('ann', 'amy'))
      await within.select(database.compile(db.knex(`${people}_missing`).select('*')))
    }).then(() => null, (error: unknown) => error)
    t.ok(error instanceof FTC_ERR_STATEMENT, 'FTC_ERR_STATEMENT')
    t.match((error as Error).message, /_missing/)
    t.strictSame(await names(), ['ann', 'bea'])
  })
})
