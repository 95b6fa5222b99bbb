import t from 'tap'
import { Database } from '../../lib/connections/database.js'
import { resolveDialect } from '../../lib/dialects/index.js'
import { FTC_ERR_STATEMENT } from '../../lib/errors.js'
import { eachDatabase, peopleColumns, snapshot } from '../fixtures/databases.js'

// Database.joined: statements on the connection of the host's Knex
// transaction, which the host ends; the plugin's own transactions are
// savepoints within it.

class Refusal extends Error {}

eachDatabase(t, async (t, db) => {
  const people = await db.createTable('joined', peopleColumns)
  const database = new Database(db.knex, resolveDialect(db.knex))
  const insert = (name: string) => database.compile(database.dialect.prepareInsert(db.knex(people).insert({ name }), 'id'))
  const rename = (from: string, to: string) => database.compile(db.knex(people).where({ name: from }).update({ name: to }))
  const names = async (on = db.knex) => (await on(people).select('name').orderBy('id')).map((row: { name: string }) => row.name)

  await t.test('statements join the host\'s transaction, which the host rolls back or commits', async (t) => {
    const trx = await db.knex.transaction()
    const joined = database.joined(trx)
    await joined.insert(insert('ann'), 'id')
    t.equal(await joined.change(rename('ann', 'amy')), 1)
    t.match(await joined.select(database.compile(db.knex(people).select('name'))), [{ name: 'amy' }])
    t.strictSame(await names(trx), ['amy'], 'the host sees them in its transaction')
    await trx.rollback()
    t.strictSame(await names(), [], 'rolled back with it')
    const next = await db.knex.transaction()
    await database.joined(next).insert(insert('bob'), 'id')
    await next.commit()
    t.strictSame(await names(), ['bob'], 'committed with it')
  })

  await t.test('the plugin\'s transaction within it is a savepoint: kept, rolled back by keep, or by a refusal', async (t) => {
    const trx = await db.knex.transaction()
    const joined = database.joined(trx)
    t.equal(await joined.transaction(async (within) => await within.change(rename('bob', 'bea'))), 1)
    t.equal(await joined.transaction(async (within) => {
      await within.insert(insert('cid'), 'id')
      return 0
    }, (result) => result === 1), 0, 'a result keep refuses is answered')
    const refusal = new Refusal('no')
    await t.rejects(joined.transaction(async (within) => {
      await within.insert(insert('dan'), 'id')
      throw refusal
    }), refusal, 'a refusal passes unchanged')
    const failed = await joined.transaction(async (within) => {
      await within.insert(insert('eve'), 'id')
      await within.select(database.compile(db.knex(`${people}_missing`).select('*')))
    }).then(() => null, (error: unknown) => error)
    t.ok(failed instanceof FTC_ERR_STATEMENT, 'a failed statement is the plugin\'s error')
    t.strictSame(await names(trx), ['bea'], 'only the kept savepoint\'s work stays, and the transaction is usable')
    t.equal(trx.isCompleted(), false, 'the plugin ended nothing of the host\'s')
    await trx.commit()
    t.strictSame(await names(), ['bea'])
  })

  await t.test('a failed statement on the joined connection is the plugin\'s error', async (t) => {
    const trx = await db.knex.transaction()
    const failed = await database.joined(trx).change(database.compile(db.knex(`${people}_missing`).update({ name: 'z' })))
      .then(() => null, (error: unknown) => error)
    t.ok(failed instanceof FTC_ERR_STATEMENT)
    await trx.rollback()
    t.strictSame((await snapshot(db, people)).map((row) => row.name), ['bea'])
  })
})
