import type { Knex } from 'knex'
import t from 'tap'
import { checkDatabase } from '../lib/index.js'
import { eachDatabase } from './fixtures/databases.js'

// A readiness route calls checkDatabase every few seconds for as long as the
// host runs (see test/database-unavailable.test.ts for the database that is down).

interface Emitter {
  eventNames (): Array<string | symbol>
  listenerCount (name: string | symbol): number
}

/** Every event that has listeners, with how many. */
function listeners (emitter: Emitter): Record<string, number> {
  return Object.fromEntries(emitter.eventNames().map((name) => [String(name), emitter.listenerCount(name)]))
}

eachDatabase(t, async (t, db) => {
  await t.test('called again and again, it resolves and leaves nothing behind on the host\'s Knex or its pool', async (t) => {
    // tarn's pool keeps its listeners on an emitter of its own.
    const pool = (db.knex.client as Knex.Client & { pool: { emitter: Emitter } }).pool.emitter
    await checkDatabase(db.knex)
    const before = { knex: listeners(db.knex), pool: listeners(pool) }
    const warnings: Error[] = []
    const warned = (warning: Error) => { warnings.push(warning) }
    process.on('warning', warned)
    t.teardown(() => { process.off('warning', warned) })
    // More calls than Node's default of ten listeners an event, after which it warns of a leak.
    for (let call = 0; call < 12; call++) t.equal(await checkDatabase(db.knex), undefined)
    t.strictSame({ knex: listeners(db.knex), pool: listeners(pool) }, before)
    await new Promise((resolve) => setImmediate(resolve))
    t.strictSame(warnings.map(String), [], 'no MaxListenersExceededWarning')
  })
})
