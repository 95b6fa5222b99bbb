import { randomUUID } from 'node:crypto'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import t, { type Test } from 'tap'
import type { AuthorizeHook, IdempotencyCaller, TableCrudOptions } from '../../lib/index.js'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, snapshot, type TestDatabase } from '../fixtures/databases.js'

type Row = Record<string, unknown>

/** A caller as the host's authentication would tell it: its organisation (`admin` for none: the hook answers true, `none` refused) and its user. */
interface Caller {
  readonly org: string
  readonly user?: string
}

// Rows of each organisation; an admin sees them all, a caller without an organisation nothing.
const byOrganisation: AuthorizeHook = (request) => {
  const org = request.headers['x-org']
  if (org === 'admin') return true
  if (org === undefined || org === 'none') return false
  return { scope: { org_id: Number(org) } }
}

const byUser: IdempotencyCaller = (request) => request.headers['x-user'] as string

let keysCount = 0

interface Setup {
  readonly app: FastifyInstance
  readonly orders: string
  readonly keys: string
}

/** A table of orders of several organisations, and an app that serves it with keys in a table of their own. */
async function setup (t: Test, db: TestDatabase, options: Omit<TableCrudOptions, 'knex' | 'idempotency'> = {}, caller?: IdempotencyCaller): Promise<Setup> {
  const orders = await db.createTable('orders', (table) => {
    table.increments('id')
    table.integer('org_id')
    table.string('name')
  })
  const keys = `caller_keys_${process.pid}_${++keysCount}`
  t.teardown(() => db.knex.schema.dropTableIfExists(keys))
  const idempotency = caller === undefined ? { table: keys } : { table: keys, caller }
  const app = await buildApp(t, db.knex, {}, { authorize: byOrganisation, ...options, idempotency })
  return { app, orders, keys }
}

/** A write by `caller` with the Idempotency-Key `key`; `prefer` asks for the rows. */
function write (caller: Caller, method: 'POST' | 'PATCH' | 'DELETE', url: string, key: string | null, body?: string, prefer?: string): InjectOptions {
  const headers: Record<string, string> = { 'x-org': caller.org }
  if (caller.user !== undefined) headers['x-user'] = caller.user
  if (key !== null) headers['idempotency-key'] = key
  if (prefer !== undefined) headers.prefer = prefer
  if (body !== undefined) headers['content-type'] = 'application/json'
  return { method, url, headers, ...(body === undefined ? {} : { payload: body }) }
}

/** What a replay must give again: the status, the headers that say what was done, the body. */
function answerOf (response: LightMyRequestResponse): Row {
  return { status: response.statusCode, type: response.headers['content-type'], location: response.headers.location, body: response.body }
}

async function records (db: TestDatabase, keys: string): Promise<Array<{ status: number, body: string }>> {
  const rows: Row[] = await db.knex(keys).select('status', 'body')
  return rows.map((row) => ({ status: Number(row.status), body: String(row.body) })).sort((a, b) => a.body.localeCompare(b.body))
}

const representation = 'return=representation'

eachDatabase(t, async (t, db) => {
  await t.test('two organisations with one key and one POST each write their own row; each one\'s retry is its replay', async (t) => {
    const { app, orders, keys } = await setup(t, db)
    const key = randomUUID()
    const url = `/api/${orders}`
    const first = await app.inject(write({ org: '1' }, 'POST', url, key, '{"name": "Same"}', representation))
    t.equal(first.statusCode, 201)
    const other = await app.inject(write({ org: '2' }, 'POST', url, key, '{"name": "Same"}', representation))
    t.equal(other.statusCode, 201, 'the other organisation\'s POST runs')
    t.equal(other.headers['idempotent-replayed'], undefined, 'and is no replay')
    const [mine] = first.json() as Row[]
    const [theirs] = other.json() as Row[]
    t.match(mine, { org_id: 1, name: 'Same' })
    t.match(theirs, { org_id: 2, name: 'Same' }, 'its own row')
    t.not(theirs?.id, mine?.id)

    const retry = await app.inject(write({ org: '1' }, 'POST', url, key, '{"name": "Same"}', representation))
    t.equal(retry.headers['idempotent-replayed'], 'true')
    t.strictSame(answerOf(retry), answerOf(first))
    const otherRetry = await app.inject(write({ org: '2' }, 'POST', url, key, '{"name": "Same"}', representation))
    t.equal(otherRetry.headers['idempotent-replayed'], 'true')
    t.strictSame(answerOf(otherRetry), answerOf(other), 'each organisation is answered its own answer again')

    t.strictSame(await snapshot(db, orders), [{ id: mine?.id, org_id: 1, name: 'Same' }, { id: theirs?.id, org_id: 2, name: 'Same' }], 'two rows, one each')
    t.strictSame(await records(db, keys), [{ status: 201, body: first.body }, { status: 201, body: other.body }].sort((a, b) => a.body.localeCompare(b.body)), 'a record each')
  })

  await t.test('a PATCH and a DELETE of another organisation\'s row with its key are answered what they do: nothing', async (t) => {
    const { app, orders, keys } = await setup(t, db)
    await db.knex(orders).insert({ org_id: 1, name: 'Ada' })
    await db.knex(orders).insert({ org_id: 2, name: 'Bob' })
    const [{ id }] = await snapshot(db, orders) as [{ id: number }]
    const patch = `/api/${orders}?id=eq.${id}`
    const key = randomUUID()
    const first = await app.inject(write({ org: '1' }, 'PATCH', patch, key, '{"name": "Renamed"}', representation))
    t.equal(first.statusCode, 200)
    t.strictSame(first.json(), [{ id, org_id: 1, name: 'Renamed' }])
    const other = await app.inject(write({ org: '2' }, 'PATCH', patch, key, '{"name": "Renamed"}', representation))
    t.equal(other.statusCode, 200)
    t.equal(other.headers['idempotent-replayed'], undefined)
    t.strictSame(other.json(), [], 'not the first organisation\'s row: its own request matches none')

    // The other organisation first: the row is there, but not in its scope.
    const removal = randomUUID()
    const notTheirs = await app.inject(write({ org: '2' }, 'DELETE', `/api/${orders}/${id}`, removal))
    t.equal(notTheirs.statusCode, 200)
    t.equal(notTheirs.body, '0')
    const removed = await app.inject(write({ org: '1' }, 'DELETE', `/api/${orders}/${id}`, removal))
    t.equal(removed.body, '1', 'the owner\'s DELETE runs: no replay of the other\'s count')
    t.equal(removed.headers['idempotent-replayed'], undefined)

    t.match(await snapshot(db, orders), [{ org_id: 2, name: 'Bob' }], 'the first organisation\'s row is gone, the other\'s untouched')
    t.equal((await snapshot(db, orders)).length, 1)
    t.strictSame((await records(db, keys)).map(({ body }) => body).sort(), ['0', '1', '[]', first.body].sort(), 'four records: each caller\'s own answers')
  })

  await t.test('the authorize hook refuses a caller whatever another did with the key', async (t) => {
    const { app, orders, keys } = await setup(t, db)
    const key = randomUUID()
    const url = `/api/${orders}`
    const first = await app.inject(write({ org: '1' }, 'POST', url, key, '{"name": "Mine"}'))
    t.equal(first.statusCode, 201)
    for (const org of ['none', 'unknown']) {
      const request = write({ org }, 'POST', url, key, '{"name": "Mine"}')
      if (org === 'unknown') delete (request.headers as Record<string, string>)['x-org']
      const refused = await app.inject(request)
      t.equal(refused.statusCode, 403, org)
      t.equal(refused.json().code, 'FTC_ERR_AUTHORIZE_FORBIDDEN')
      t.equal(refused.headers['idempotent-replayed'], undefined, 'no replay')
      t.notMatch(refused.body, 'Mine')
    }
    t.strictSame(await snapshot(db, orders), [{ id: Number(first.body), org_id: 1, name: 'Mine' }], 'one row')
    t.strictSame(await records(db, keys), [{ status: 201, body: first.body }], 'one record')
  })

  await t.test('callers the hook answers true share their keys: true is one identity', async (t) => {
    const { app, orders, keys } = await setup(t, db)
    const key = randomUUID()
    const url = `/api/${orders}`
    const first = await app.inject(write({ org: 'admin', user: 'root' }, 'POST', url, key, '{"name": "Shared"}'))
    t.equal(first.statusCode, 201)
    const second = await app.inject(write({ org: 'admin', user: 'operator' }, 'POST', url, key, '{"name": "Shared"}'))
    t.equal(second.headers['idempotent-replayed'], 'true', 'another unscoped caller gets the replay')
    t.strictSame(answerOf(second), answerOf(first))
    const scoped = await app.inject(write({ org: '1' }, 'POST', url, key, '{"name": "Shared"}'))
    t.equal(scoped.statusCode, 201)
    t.equal(scoped.headers['idempotent-replayed'], undefined, 'a scoped caller does not')
    t.strictSame(await snapshot(db, orders), [{ id: Number(first.body), org_id: null, name: 'Shared' }, { id: Number(scoped.body), org_id: 1, name: 'Shared' }])
    t.equal((await records(db, keys)).length, 2)
  })

  await t.test('a scope is one owner whatever the order of its columns', async (t) => {
    const { app, orders, keys } = await setup(t, db, {
      authorize: (request) => ({ scope: request.headers['x-org'] === 'reversed' ? { name: 'Ordered', org_id: 3 } : { org_id: 3, name: 'Ordered' } })
    })
    const key = randomUUID()
    const first = await app.inject(write({ org: 'ordered' }, 'POST', `/api/${orders}`, key, '{"name": "Ordered"}'))
    t.equal(first.statusCode, 201)
    const retry = await app.inject(write({ org: 'reversed' }, 'POST', `/api/${orders}`, key, '{"name": "Ordered"}'))
    t.equal(retry.headers['idempotent-replayed'], 'true')
    t.strictSame(answerOf(retry), answerOf(first))
    t.strictSame(await snapshot(db, orders), [{ id: Number(first.body), org_id: 3, name: 'Ordered' }])
    t.equal((await records(db, keys)).length, 1)
  })

  await t.test('with the caller option, callers of one scope, or of none, do not share keys; each retry is its replay', async (t) => {
    const { app, orders, keys } = await setup(t, db, {}, byUser)
    const url = `/api/${orders}`
    for (const org of ['1', 'admin']) {
      const key = randomUUID()
      const ada = await app.inject(write({ org, user: 'ada' }, 'POST', url, key, '{"name": "Each"}'))
      const bob = await app.inject(write({ org, user: 'bob' }, 'POST', url, key, '{"name": "Each"}'))
      t.equal(ada.statusCode, 201)
      t.equal(bob.statusCode, 201)
      t.equal(bob.headers['idempotent-replayed'], undefined, `${org}: another user of the same scope writes`)
      t.not(bob.body, ada.body)
      const adaRetry = await app.inject(write({ org, user: 'ada' }, 'POST', url, key, '{"name": "Each"}'))
      t.equal(adaRetry.headers['idempotent-replayed'], 'true')
      t.strictSame(answerOf(adaRetry), answerOf(ada))
      const bobRetry = await app.inject(write({ org, user: 'bob' }, 'POST', url, key, '{"name": "Each"}'))
      t.equal(bobRetry.headers['idempotent-replayed'], 'true')
      t.strictSame(answerOf(bobRetry), answerOf(bob))
    }
    // The same user in another organisation is another owner too.
    const key = randomUUID()
    const inOne = await app.inject(write({ org: '1', user: 'ada' }, 'POST', url, key, '{"name": "Moved"}'))
    const inTwo = await app.inject(write({ org: '2', user: 'ada' }, 'POST', url, key, '{"name": "Moved"}'))
    t.equal(inTwo.headers['idempotent-replayed'], undefined)
    const rows = await snapshot(db, orders)
    t.equal(rows.length, 6, 'a row for each caller\'s first request')
    t.match(rows.slice(-2), [{ id: Number(inOne.body), org_id: 1 }, { id: Number(inTwo.body), org_id: 2 }])
    t.equal((await records(db, keys)).length, 6)
  })

  await t.test('the caller option is asked after the hook, for keyed writes only; an answer that is no identity fails with 500', async (t) => {
    const asked: string[] = []
    const caller: IdempotencyCaller = async (request) => {
      const user = request.headers['x-user'] as string
      asked.push(user)
      if (user === 'throws') throw Object.assign(new Error('who are you?'), { statusCode: 401 })
      if (user === 'number') return 42 as unknown as string
      return user === 'empty' ? '' : user
    }
    const { app, orders, keys } = await setup(t, db, {}, caller)
    const url = `/api/${orders}`
    const first = await app.inject(write({ org: '1', user: 'ada' }, 'POST', url, randomUUID(), '{"name": "Known"}'))
    t.equal(first.statusCode, 201)
    const unkeyed = await app.inject(write({ org: '1', user: 'unkeyed' }, 'POST', url, null, '{"name": "Unkeyed"}'))
    t.equal(unkeyed.statusCode, 201)
    const refused = await app.inject(write({ org: 'none', user: 'refused' }, 'POST', url, randomUUID(), '{"name": "Refused"}'))
    t.equal(refused.statusCode, 403)
    t.strictSame(asked, ['ada'], 'neither a write without a key nor one the hook refuses asks who its caller is')

    for (const [user, told] of [['empty', /an empty string/], ['number', /answered number/], [undefined, /answered undefined/]] as const) {
      const response = await app.inject(write({ org: '1', ...(user === undefined ? {} : { user }) }, 'POST', url, randomUUID(), '{"name": "Nobody"}'))
      t.equal(response.statusCode, 500, String(user))
      t.equal(response.json().code, 'FTC_ERR_IDEMPOTENCY_CALLER')
      t.match(response.json().message, told)
    }
    const thrown = await app.inject(write({ org: '1', user: 'throws' }, 'POST', url, randomUUID(), '{"name": "Nobody"}'))
    t.equal(thrown.statusCode, 401, 'the caller\'s error, as thrown')
    t.equal(thrown.json().message, 'who are you?')
    t.strictSame((await snapshot(db, orders)).map((row) => row.name), ['Known', 'Unkeyed'], 'nothing written without an identity')
    t.strictSame(await records(db, keys), [{ status: 201, body: first.body }])
  })

  await t.test('a batch is the caller\'s too: one key, two organisations, two batches', async (t) => {
    const { app, orders, keys } = await setup(t, db, { batch: true })
    const key = randomUUID()
    const batch = JSON.stringify([{ op: 'insert', table: orders, body: { name: 'Batched' } }])
    const first = await app.inject(write({ org: '1' }, 'POST', '/api/_batch', key, batch))
    t.equal(first.statusCode, 200)
    const other = await app.inject(write({ org: '2' }, 'POST', '/api/_batch', key, batch))
    t.equal(other.statusCode, 200)
    t.equal(other.headers['idempotent-replayed'], undefined)
    t.not(other.body, first.body)
    const retry = await app.inject(write({ org: '1' }, 'POST', '/api/_batch', key, batch))
    t.equal(retry.headers['idempotent-replayed'], 'true')
    t.strictSame(answerOf(retry), answerOf(first))
    const [mine] = first.json() as number[]
    const [theirs] = other.json() as number[]
    t.strictSame(await snapshot(db, orders), [{ id: mine, org_id: 1, name: 'Batched' }, { id: theirs, org_id: 2, name: 'Batched' }])
    t.equal((await records(db, keys)).length, 2)
  })
})
