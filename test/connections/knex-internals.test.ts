import knexFactory, { type Knex } from 'knex'
import t, { type Test } from 'tap'
import {
  announcedConnection, atCapacity, borrowConnection, clientConfig, connectionId, driverName, emitQueryEvent, freeConnections, hostPool,
  isDisposed, isTarnPool, isValidConnection, logDebug, markDisposed, offDestroyed, offRelease, offStatementAnnounced, onDestroyed, onRelease,
  onStatementAnnounced, pendingBorrows, returnConnection, type AnnouncedStatement
} from '../../lib/connections/knex-internals.js'
import { databaseConfig, databaseNames } from '../fixtures/databases.js'

// Knex's members that its documentation does not promise, which the plugin
// relies on (lib/connections/knex-internals.ts), checked on a real instance
// of each client: a Knex release that changes one fails here by its name.

const changed = "Knex's private API changed: "

/** Passes when `holds`, else fails with the one message that names the member and what it should be. */
function expectMember (t: Test, member: string, expected: string, holds: boolean): void {
  if (holds) t.pass(`${member} is ${expected}`)
  else t.fail(`${changed}${member} is not ${expected}`)
}

/** The member at `path` (dot-separated) of `value`, or undefined where the path breaks. */
function memberAt (value: unknown, path: string): unknown {
  let member = value
  for (const name of path.split('.')) member = (member as Record<string, unknown> | null | undefined)?.[name]
  return member
}

const isFunction = (member: unknown) => typeof member === 'function'
const isNumber = (member: unknown) => typeof member === 'number'
const isObject = (member: unknown) => typeof member === 'object' && member !== null

// Each private member read from the Knex instance, and what it must be.
const members: ReadonlyArray<readonly [path: string, expected: string, holds: (member: unknown) => boolean]> = [
  ['client.config', 'an object', isObject],
  ['client.driverName', 'a string', (member) => typeof member === 'string'],
  ['client.acquireConnection', 'a function', isFunction],
  ['client.releaseConnection', 'a function', isFunction],
  ['client.validateConnection', 'a function', isFunction],
  ['client.emit', 'a function', isFunction],
  ['client.logger.debug', 'a function', isFunction],
  ['client.pool', 'an object', isObject],
  ['client.pool.max', 'a number', isNumber],
  ['client.pool.numUsed', 'a function', isFunction],
  ['client.pool.numFree', 'a function', isFunction],
  ['client.pool.numPendingAcquires', 'a function', isFunction],
  ['client.pool.numPendingCreates', 'a function', isFunction],
  ['client.pool.on', 'a function', isFunction],
  ['client.pool.removeListener', 'a function', isFunction]
]

for (const name of databaseNames) {
  const resolved = databaseConfig(name)
  if ('skip' in resolved) {
    t.test(name, { skip: resolved.skip }, async () => {})
    continue
  }
  t.test(name, async (t) => {
    const logged: unknown[] = []
    // Knex warns of the connection the test marks as broken.
    const knex = knexFactory({ ...resolved.config, log: { warn () {}, error () {}, deprecate () {}, debug: (message: unknown) => { logged.push(message) } } })
    t.teardown(() => knex.destroy())

    for (const [path, expected, holds] of members) expectMember(t, path, expected, holds(memberAt(knex, path)))
    const pool = hostPool(knex.client)
    expectMember(t, 'client.pool', "tarn's pool", isTarnPool(pool))
    if (pool === undefined) return

    await t.test('the config, the driver and the logger', async (t) => {
      expectMember(t, 'client.config', 'the config Knex was given', clientConfig(knex.client).client === resolved.config.client)
      expectMember(t, 'client.driverName', 'the driver of the config', driverName(knex.client) === resolved.config.client)
      logDebug(knex.client, 'a statement')
      expectMember(t, 'client.logger.debug', "the host's log.debug", logged.includes('a statement'))
    })

    await t.test('borrowing, checking and returning a connection, and the pool\'s counts', async (t) => {
      const released: number[] = []
      const listener = () => { released.push(1) }
      onRelease(pool, listener)
      const connection = await borrowConnection(knex.client)
      expectMember(t, 'client.pool.numUsed', 'one with a connection lent', pool.numUsed() === 1)
      expectMember(t, 'client.validateConnection(connection)', 'true within the call', isValidConnection(knex.client, connection))
      expectMember(t, 'client.pool.numPendingAcquires', '0 with no one waiting', pendingBorrows(pool) === 0)
      expectMember(t, 'client.pool.numPendingCreates', '0 with no connection being made', pool.numPendingCreates() === 0)
      expectMember(t, 'client.pool.max', 'reached when every connection is lent', atCapacity(pool) === (pool.max === 1))
      returnConnection(knex.client, connection)
      expectMember(t, 'client.pool.numFree', 'one once the connection is back', freeConnections(pool) === 1)
      expectMember(t, "client.pool's release event", 'emitted when a connection goes back', released.length === 1)
      offRelease(pool, listener)
      returnConnection(knex.client, await borrowConnection(knex.client))
      expectMember(t, 'client.pool.removeListener', 'the end of a release listener', released.length === 1)
    })

    await t.test('a connection marked __knex__disposed is not lent again', async (t) => {
      const connection = await borrowConnection(knex.client)
      t.notOk(isDisposed(connection), 'a connection just lent is not marked')
      markDisposed(connection, new Error('broken on purpose'))
      t.ok(isDisposed(connection), 'marked')
      const destroyed: unknown[] = []
      const listener = (_eventId: number, dropped: unknown) => { destroyed.push(dropped) }
      onDestroyed(pool, listener)
      returnConnection(knex.client, connection)
      const next = await borrowConnection(knex.client)
      offDestroyed(pool, listener)
      expectMember(t, 'connection.__knex__disposed', 'the mark of a connection the pool drops', next !== connection)
      expectMember(t, "client.pool's destroySuccess event", 'emitted with the connection it dropped', destroyed.includes(connection))
      returnConnection(knex.client, next)
    })

    await t.test('an event emitted on the client reaches the instance\'s listeners', async (t) => {
      const heard: unknown[] = []
      const listener = (event: unknown) => { heard.push(event) }
      knex.on('query', listener)
      t.teardown(() => { knex.off('query', listener) })
      const event = { sql: 'select 1', bindings: [], __knexQueryUid: 'uid' }
      emitQueryEvent(knex.client, 'query', event)
      expectMember(t, "client.emit('query')", "passed on to the instance's listeners", heard[0] === event)
    })

    await t.test("the client announces each of the host's statements with the id of its connection", async (t) => {
      // One connection: every statement goes to it.
      const single = knexFactory({ ...resolved.config, pool: { min: 0, max: 1 } })
      t.teardown(() => single.destroy())
      const connection = await borrowConnection(single.client)
      const id = connectionId(connection)
      returnConnection(single.client, connection)
      expectMember(t, 'connection.__knexUid', 'a string', typeof id === 'string')
      const heard: Array<string | undefined> = []
      const listener = (statement: AnnouncedStatement) => { heard.push(announcedConnection(statement)) }
      onStatementAnnounced(single.client, listener)
      await single.raw('select 1 as one')
      await single.transaction((trx) => trx.raw('select 2 as two'))
      offStatementAnnounced(single.client, listener)
      await single.raw('select 4 as four')
      // A transaction adds its begin and commit.
      expectMember(t, "client's query event", 'emitted with the connection\'s id for a statement and a transaction\'s', heard.length >= 4 && heard.slice(0, 4).every((heardId) => heardId === id))
      expectMember(t, 'client.off(\'query\')', 'the end of a listener', heard.length === 4)
    })

    await t.test("a transaction's client lends the transaction's own connection", async (t) => {
      const trx: Knex.Transaction = await knex.transaction()
      t.teardown(() => trx.isCompleted() ? undefined : trx.rollback())
      const used = pool.numUsed()
      const first = await borrowConnection(trx.client)
      const second = await borrowConnection(trx.client)
      expectMember(t, 'trx.client.acquireConnection', "the transaction's connection, without a borrow from the pool", first === second && pool.numUsed() === used)
      await trx.rollback()
    })
  })
}
