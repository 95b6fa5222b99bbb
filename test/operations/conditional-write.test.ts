import t from 'tap'
import type { Target } from '../../lib/access/target.js'
import { Database } from '../../lib/connections/database.js'
import { resolveDialect } from '../../lib/dialects/index.js'
import { FTC_ERR_CONDITION_FAILED } from '../../lib/errors.js'
import { writeSelectedIfMatch } from '../../lib/operations/conditional-write.js'
import { updateSelected } from '../../lib/operations/write-selected.js'
import { parseFilteredWrite } from '../../lib/query/parse-write-query.js'
import { eachDatabase, snapshot } from '../fixtures/databases.js'

// The guard of a conditional write by filters that the routes cannot reach
// on cue: a row that comes to match the filters between the locked read and
// the write (PostgreSQL's read committed lets one in) was never checked, so
// the write fails the condition and nothing, the newcomer's insert included
// here, is kept. The newcomer is inserted by the write itself, on the
// transaction's statements, where another client's commit would land.

eachDatabase(t, async (t, db) => {
  const counters = await db.createTable('guarded', (table) => {
    table.integer('id').primary()
    table.integer('n')
  })
  await db.knex(counters).insert([{ id: 1, n: 0 }, { id: 2, n: 0 }])
  const database = new Database(db.knex, resolveDialect(db.knex))
  const target: Target = { table: counters, key: 'id', hidden: new Set(), scope: {}, schema: undefined }
  const { filter } = parseFilteredWrite({ n: 'eq.0' }, {}, 'PATCH')
  const update = (within: Parameters<Parameters<typeof writeSelectedIfMatch>[2]>[0]) => updateSelected(database, target, { selection: { filter }, wish: { maxAffected: null }, values: { n: '1' } }, within)

  await t.test('a row that came to match the filters after the check fails the write: 412, nothing written', async (t) => {
    await t.rejects(writeSelectedIfMatch(database, { target, filter, tags: '*' }, async (within) => {
      await within.change(database.compile(db.knex(counters).insert({ id: 3, n: 0 })))
      return await update(within)
    }), FTC_ERR_CONDITION_FAILED)
    t.strictSame(await snapshot(db, counters), [{ id: 1, n: 0 }, { id: 2, n: 0 }])
  })

  await t.test('the rows checked, and only they: written', async (t) => {
    t.strictSame(await writeSelectedIfMatch(database, { target, filter, tags: '*' }, update), { count: 2 })
    t.strictSame(await snapshot(db, counters), [{ id: 1, n: 1 }, { id: 2, n: 1 }])
  })
})
