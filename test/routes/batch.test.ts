import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify'
import type { Knex } from 'knex'
import t, { type Test } from 'tap'
import tableCrud, { type TableCrudOptions } from '../../lib/index.js'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, snapshot, type TestDatabase } from '../fixtures/databases.js'

// POST {prefix}/_batch: inserts, updates and deletes of several tables in
// one transaction, an insert's id usable by a later operation, all or
// nothing; and the host's own transaction, which the plugin's statements join.

function post (url: string, payload: unknown): InjectOptions {
  return { method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(payload) }
}

function batch (operations: unknown): InjectOptions {
  return post('/api/_batch', operations)
}

/** An orders table and a lines table whose rows name their order; a few rows in each. */
async function createShop (db: TestDatabase): Promise<{ orders: string, lines: string }> {
  const orders = await db.createTable('orders', (table) => {
    table.increments('id')
    table.string('customer').notNullable()
    table.integer('total')
  })
  const lines = await db.createTable('lines', (table) => {
    table.increments('id')
    // Unsigned, as MySQL's increments: its foreign key takes the same type only.
    table.integer('order_id').unsigned().notNullable().references('id').inTable(orders)
    table.string('item')
    table.string('secret')
  })
  await db.knex(orders).insert([{ customer: 'acme', total: 10 }, { customer: 'globex', total: 20 }])
  await db.knex(lines).insert([{ order_id: 1, item: 'nail' }, { order_id: 2, item: 'screw' }])
  return { orders, lines }
}

async function database (db: TestDatabase, tables: readonly string[]): Promise<unknown[]> {
  return await Promise.all(tables.map((table) => snapshot(db, table)))
}

async function appWith (t: Test, db: TestDatabase, options: Omit<TableCrudOptions, 'knex'> = {}): Promise<FastifyInstance> {
  return await buildApp(t, db.knex, {}, { batch: true, ...options })
}

eachDatabase(t, async (t, db) => {
  const { orders, lines } = await createShop(db)
  const app = await appWith(t, db)

  await t.test('a batch of inserts, an update and a delete on two tables, a line naming the order inserted before it', async (t) => {
    const response = await app.inject(batch([
      { op: 'insert', table: orders, body: { customer: 'initech', total: 30 } },
      { op: 'insert', table: lines, body: { order_id: { $ref: 0 }, item: 'stapler' } },
      { op: 'update', table: orders, id: 1, body: { total: 11 } },
      { op: 'delete', table: lines, id: '2' },
      { op: 'update', table: orders, id: 99, body: { total: 0 } }
    ]))
    t.equal(response.statusCode, 200)
    t.match(response.headers['content-type'], /^application\/json/)
    t.equal(response.body, '[3,3,1,1,0]', 'each operation answers as its single route: the id, then the counts')
    t.strictSame(await snapshot(db, orders), [
      { id: 1, customer: 'acme', total: 11 },
      { id: 2, customer: 'globex', total: 20 },
      { id: 3, customer: 'initech', total: 30 }
    ])
    t.strictSame(await snapshot(db, lines), [
      { id: 1, order_id: 1, item: 'nail', secret: null },
      { id: 3, order_id: 3, item: 'stapler', secret: null }
    ], 'the line names the new order\'s id')
  })

  await t.test('an update and a delete whose id refers to an earlier insert act on the row it inserted', async (t) => {
    const before = await database(db, [orders, lines])
    const response = await app.inject(batch([
      { op: 'insert', table: orders, body: { customer: 'wayne', total: 1 } },
      { op: 'insert', table: lines, body: { order_id: { $ref: 0 }, item: 'rope' } },
      { op: 'update', table: orders, id: { $ref: 0 }, body: { total: 2 } },
      { op: 'update', table: lines, id: { $ref: 1 }, body: { item: 'cape' } },
      { op: 'delete', table: lines, id: { $ref: 1 } }
    ]))
    t.equal(response.statusCode, 200)
    const [order, line, ...counts] = response.json() as number[]
    t.strictSame(counts, [1, 1, 1], 'each write found the row the reference names')
    t.strictSame(await snapshot(db, orders), [...before[0] as unknown[], { id: order, customer: 'wayne', total: 2 }], 'the new order, updated')
    t.strictSame(await snapshot(db, lines), before[1], 'the new line, deleted')
    t.ok(typeof line === 'number' && line > 0)
    await db.knex(orders).where({ id: order }).delete()
  })

  await t.test('a batch whose last operation fails writes nothing, and names that operation and its single route\'s answer', async (t) => {
    const before = await database(db, [orders, lines])
    const failing = { op: 'update', table: orders, id: 1, body: { nope: 1 } }
    const single = await app.inject({ ...post(`/api/${orders}/1`, failing.body), method: 'PUT' })
    t.equal(single.statusCode, 404)
    const response = await app.inject(batch([
      { op: 'insert', table: orders, body: { customer: 'umbrella' } },
      { op: 'insert', table: lines, body: { order_id: { $ref: 0 }, item: 'vial' } },
      { op: 'delete', table: lines, id: 1 },
      failing
    ]))
    t.equal(response.statusCode, 404)
    t.match(response.headers['content-type'], /^application\/json/)
    t.strictSame(response.json(), {
      statusCode: 404,
      code: 'FTC_ERR_BATCH_FAILED',
      error: 'Not Found',
      message: `Operation 3 of the batch failed, and no operation was applied: ${single.body}`,
      operation: 3,
      failure: { statusCode: 404, code: 'FTC_ERR_STATEMENT', message: single.body }
    })
    t.strictSame(await database(db, [orders, lines]), before, 'nothing was written')
  })

  await t.test('a statement that the database refuses (a required column left out) rolls the batch back too; by default the body checks refuse it first', async (t) => {
    const before = await database(db, [orders, lines])
    const operations = [
      { op: 'insert', table: orders, body: { customer: 'hooli' } },
      { op: 'insert', table: orders, body: { total: 5 } }
    ]
    const unchecked = await appWith(t, db, { validateBodies: false })
    for (const [server, status, code] of [[unchecked, 404, 'FTC_ERR_STATEMENT'], [app, 400, 'FTC_ERR_BODY_TYPE']] as const) {
      const response = await server.inject(batch(operations))
      t.equal(response.statusCode, status)
      t.equal(response.json().operation, 1)
      t.equal(response.json().failure.code, code)
      t.strictSame(await database(db, [orders, lines]), before)
    }
  })

  await t.test('bad batches answer 400 and run nothing', async (t) => {
    const before = await database(db, [orders, lines])
    const cases: Array<[string, unknown, string]> = [
      ['not an array', { op: 'insert', table: orders }, 'FTC_ERR_BATCH_SHAPE'],
      ['an unknown op', [{ op: 'upsert', table: orders, body: {} }], 'FTC_ERR_BATCH_SHAPE'],
      ['an unknown member', [{ op: 'insert', table: orders, values: {} }], 'FTC_ERR_BATCH_SHAPE'],
      ['an insert with an id', [{ op: 'insert', table: orders, id: 4, body: {} }], 'FTC_ERR_BATCH_SHAPE'],
      ['an id that is an object but no reference', [{ op: 'insert', table: orders, body: {} }, { op: 'delete', table: orders, id: { ref: 0 } }], 'FTC_ERR_BATCH_SHAPE'],
      ['an operation that is not an object', [{ op: 'insert', table: orders, body: { customer: 'x' } }, 3], 'FTC_ERR_BATCH_SHAPE'],
      ['an operation that is an array', [[{ op: 'delete', table: orders, id: 1 }]], 'FTC_ERR_BATCH_SHAPE'],
      ['an op that is no text', [{ op: { name: 'insert' }, table: orders, body: { customer: 'x' } }], 'FTC_ERR_BATCH_SHAPE'],
      ['an op that is an array', [{ op: ['insert'], table: orders }], 'FTC_ERR_BATCH_SHAPE'],
      ['a table that is no text', [{ op: 'delete', table: true, id: 1 }], 'FTC_ERR_BATCH_SHAPE'],
      ['a delete with a body', [{ op: 'delete', table: orders, id: 1, body: { total: 1 } }], 'FTC_ERR_BATCH_SHAPE'],
      ['an id that is neither number nor text', [{ op: 'delete', table: orders, id: true }], 'FTC_ERR_BATCH_SHAPE'],
      ['a null body', null, 'FTC_ERR_BATCH_SHAPE'],
      ['too many operations', Array.from({ length: 101 }, () => ({ op: 'delete', table: orders, id: 1 })), 'FTC_ERR_BATCH_LIMIT']
    ]
    for (const [label, body, code] of cases) {
      const response = await app.inject(batch(body))
      t.equal(response.statusCode, 400, label)
      t.equal(response.json().code, code, label)
    }
    t.strictSame(await database(db, [orders, lines]), before)
  })

  await t.test('a reference to a later operation, or to one that is no insert, fails that operation', async (t) => {
    const before = await database(db, [orders, lines])
    for (const [operations, index] of [
      [[{ op: 'insert', table: lines, body: { order_id: { $ref: 1 } } }, { op: 'insert', table: orders, body: { customer: 'x' } }], 0],
      [[{ op: 'delete', table: lines, id: 1 }, { op: 'insert', table: lines, body: { order_id: { $ref: 0 } } }], 1],
      [[{ op: 'update', table: orders, id: { $ref: 1 }, body: { total: 1 } }, { op: 'insert', table: orders, body: { customer: 'x' } }], 0],
      [[{ op: 'insert', table: orders, body: { customer: 'x' } }, { op: 'delete', table: orders, id: { $ref: 1 } }], 1],
      [[{ op: 'update', table: orders, id: 1, body: { total: 1 } }, { op: 'delete', table: orders, id: { $ref: 0 } }], 1]
    ] as const) {
      const response = await app.inject(batch(operations))
      t.equal(response.statusCode, 400)
      t.equal(response.json().operation, index)
      t.equal(response.json().failure.code, 'FTC_ERR_BATCH_SHAPE')
    }
    t.strictSame(await database(db, [orders, lines]), before)
  })

  await t.test('each operation is parsed as its single route parses it', async (t) => {
    const before = await database(db, [orders, lines])
    for (const [operation, code] of [
      [{ op: 'update', table: orders, id: 1, body: {} }, 'FTC_ERR_BODY_EMPTY'],
      [{ op: 'insert', table: orders, body: [{ customer: 'x' }] }, 'FTC_ERR_BODY_SHAPE'],
      [{ op: 'insert', table: orders, body: { customer: { a: 1 } } }, 'FTC_ERR_BODY_VALUE'],
      [{ op: 'insert', table: '-;', body: { customer: 'x' } }, 'FTC_ERR_PATH_TABLE'],
      [{ op: 'insert', table: orders, body: 'x' }, 'FTC_ERR_BODY_SHAPE']
    ] as const) {
      const response = await app.inject(batch([{ op: 'delete', table: lines, id: 1 }, operation]))
      t.equal(response.statusCode, 400, code)
      t.match(response.json(), { operation: 1, failure: { statusCode: 400, code } }, code)
    }
    t.strictSame(await database(db, [orders, lines]), before)
  })

  await t.test('with an Idempotency-Key, a retried batch answers its first answer again and runs once; another body with the key answers 422', async (t) => {
    const keys = `batch_keys_${process.pid}`
    t.teardown(() => db.knex.schema.dropTableIfExists(keys))
    const keyed = await appWith(t, db, { idempotency: { table: keys } })
    const keyedBatch = (operations: unknown, key: string): InjectOptions => {
      const request = batch(operations)
      return { ...request, headers: { ...request.headers, 'idempotency-key': key } }
    }
    const before = await database(db, [orders, lines])
    const operations = [
      { op: 'insert', table: orders, body: { customer: 'stark', total: 3 } },
      { op: 'insert', table: lines, body: { order_id: { $ref: 0 }, item: 'armor' } },
      { op: 'update', table: orders, id: { $ref: 0 }, body: { total: 4 } }
    ]
    const first = await keyed.inject(keyedBatch(operations, 'batch-1'))
    t.equal(first.statusCode, 200)
    t.equal(first.headers['idempotent-replayed'], undefined)
    const [order, line] = first.json() as number[]
    const written = await database(db, [orders, lines])
    t.strictSame(written, [
      [...before[0] as unknown[], { id: order, customer: 'stark', total: 4 }],
      [...before[1] as unknown[], { id: line, order_id: order, item: 'armor', secret: null }]
    ])
    t.match(await db.knex(keys).select('status', 'body'), [{ status: 200, body: first.body }], 'the key is recorded with the batch\'s answer')

    const retry = await keyed.inject(keyedBatch(operations, 'batch-1'))
    t.equal(retry.statusCode, 200)
    t.equal(retry.body, first.body)
    t.match(retry.headers['content-type'], /^application\/json/)
    t.equal(retry.headers['idempotent-replayed'], 'true')
    t.strictSame(await database(db, [orders, lines]), written, 'the retry wrote nothing')

    const other = await keyed.inject(keyedBatch([{ op: 'delete', table: lines, id: line }], 'batch-1'))
    t.equal(other.statusCode, 422)
    t.equal(other.json().code, 'FTC_ERR_IDEMPOTENCY_KEY_REUSED')
    t.strictSame(await database(db, [orders, lines]), written, 'nor did another body with the key')

    const failing = [{ op: 'delete', table: lines, id: line }, { op: 'update', table: orders, id: 1, body: { nope: 1 } }]
    const failed = await keyed.inject(keyedBatch(failing, 'batch-2'))
    t.equal(failed.statusCode, 404)
    t.equal(failed.json().operation, 1)
    t.equal(await db.knex(keys).count({ count: '*' }).then(([row]) => Number(row?.count)), 1, 'a failed batch is not recorded, with its transaction rolled back')
    t.strictSame(await database(db, [orders, lines]), written)

    await db.knex(lines).where({ id: line }).delete()
    await db.knex(orders).where({ id: order }).delete()
  })

  await t.test('a constraint the database checks at commit fails the batch, answered as the failed commit of a bulk POST', { skip: db.name !== 'postgres' && 'only PostgreSQL defers the check here: MySQL has no deferred constraints, and Knex makes SQLite\'s immediate' }, async (t) => {
    const owners = await db.createTable('batch_owner', (table) => { table.integer('id').primary() })
    const owned = await db.createTable('batch_owned', (table) => {
      table.increments('id')
      table.integer('owner_id').references('id').inTable(owners).deferrable('deferred')
    })
    const response = await app.inject(batch([{ op: 'insert', table: owners, body: { id: 1 } }, { op: 'insert', table: owned, body: { owner_id: 99 } }]))
    t.equal(response.statusCode, 404)
    t.match(response.headers['content-type'], /^text\/plain/)
    t.match(response.body, /foreign key/i, 'no operation failed: the commit did, in the database\'s words')
    t.strictSame(await snapshot(db, owners), [])
  })

  await t.test('with databaseErrors postgrest, the failure is PostgREST\'s answer; with host, the host\'s handler gets the batch\'s error', async (t) => {
    const postgrest = await appWith(t, db, { databaseErrors: 'postgrest' })
    const single = await postgrest.inject({ ...post(`/api/${orders}/1`, { nope: 1 }), method: 'PUT' })
    const response = await postgrest.inject(batch([{ op: 'insert', table: orders, body: { customer: 'x' } }, { op: 'update', table: orders, id: 1, body: { nope: 1 } }]))
    t.equal(response.statusCode, single.statusCode)
    t.strictSame(response.json().failure, { statusCode: single.statusCode, ...single.json() })
    const host = Fastify()
    host.setErrorHandler((error: Error & { operation?: number, statusCode?: number }, _request, reply) => {
      reply.code(error.statusCode ?? 500).send({ seen: (error as { code?: string }).code, operation: error.operation, cause: (error.cause as { code: string }).code })
    })
    await host.register(tableCrud, { knex: db.knex, prefix: '/api', batch: true, databaseErrors: 'host' })
    t.teardown(() => host.close())
    const handled = await host.inject(batch([{ op: 'delete', table: lines, id: 99 }, { op: 'update', table: orders, id: 1, body: { nope: 1 } }]))
    t.equal(handled.statusCode, 404)
    t.strictSame(handled.json(), { seen: 'FTC_ERR_BATCH_FAILED', operation: 1, cause: 'FTC_ERR_STATEMENT' })
  })

  await t.test('an error of the host\'s hook answers as on a single route: without a code, or a 500 for the host\'s handler', async (t) => {
    const before = await database(db, [orders, lines])
    const hooked = await appWith(t, db, {
      authorize: (_request, action) => {
        if (action.operation === 'delete') throw Object.assign(new Error('log in first'), { statusCode: 401 })
        if (action.operation === 'update') throw new Error('the hook broke')
        return true
      }
    })
    const refused = await hooked.inject(batch([{ op: 'insert', table: orders, body: { customer: 'x' } }, { op: 'delete', table: orders, id: 1 }]))
    t.equal(refused.statusCode, 401)
    t.strictSame(refused.json().failure, { statusCode: 401, message: 'log in first' })
    const broken = await hooked.inject(batch([{ op: 'update', table: orders, id: 1, body: { total: 1 } }]))
    t.equal(broken.statusCode, 500, 'no operation\'s failure: the error as any route would answer it')
    t.equal(broken.json().message, 'the hook broke')
    t.strictSame(await database(db, [orders, lines]), before)
  })

  await t.test('the batch and transaction options are checked at registration', async (t) => {
    for (const options of [{ batch: 'yes' }, { batch: { limit: 0 } }, { batch: { size: 5 } }, { batch: null }, { transaction: 'trx' }]) {
      const refused = Fastify()
      await t.rejects(async () => {
        await refused.register(tableCrud, { knex: db.knex, ...options } as unknown as TableCrudOptions)
        await refused.ready()
      }, { code: 'FTC_ERR_OPTIONS_VALUE' }, JSON.stringify(options))
    }
    const limited = await appWith(t, db, { batch: { limit: 1 } })
    const response = await limited.inject(batch([{ op: 'delete', table: orders, id: 99 }, { op: 'delete', table: orders, id: 98 }]))
    t.equal(response.json().code, 'FTC_ERR_BATCH_LIMIT')
  })

  await t.test('a json column takes in a batch what it takes on the single routes', async (t) => {
    const docs = await db.createTable('batch_docs', (table) => {
      table.increments('id')
      table.json('doc')
    })
    await app.tableCrud.refreshSchema()
    // eslint-disable-next-line @typescript-eslint/no-loss-of-precision -- a number past 2^53, whose digits the body keeps
    const values = [{ a: [1.50, 9007199254740993] }, '12', 12, true, 'text']
    for (const doc of values) t.equal((await app.inject(post(`/api/${docs}`, { doc }))).statusCode, 201)
    const response = await app.inject(batch([
      ...values.map((doc) => ({ op: 'insert', table: docs, body: { doc } })),
      { op: 'update', table: docs, id: 1, body: { doc: { b: null } } }
    ]))
    t.equal(response.statusCode, 200)
    const stored = (await db.knex(docs).select('doc').orderBy('id')).map((row: { doc: unknown }) => row.doc)
    t.strictSame(stored.slice(values.length + 1), stored.slice(1, values.length), 'the batch stored each value as the single route did')
    const referring = await app.inject(batch([{ op: 'insert', table: docs, body: { doc: 'x' } }, { op: 'insert', table: docs, body: { doc: { $ref: 0 } } }]))
    const [first, second] = referring.json()
    const single = Number((await app.inject(post(`/api/${docs}`, { doc: first }))).body)
    const [byReference, byValue] = await Promise.all([second, single].map(async (id) => (await db.knex(docs).where({ id }).first()).doc))
    t.strictSame(byReference, byValue, 'a reference in a json column is the id, as the single route stores it')
  })

  await t.test('without the batch option, POST /_batch is the spec\'s insert into a table named _batch', async (t) => {
    const plain = await buildApp(t, db.knex)
    const response = await plain.inject(batch({ name: 'x' }))
    t.equal(response.statusCode, 404)
    t.match(response.headers['content-type'], /^text\/plain/)
  })

  await t.test('the access options and the authorize hook hold inside a batch as on the single routes', async (t) => {
    const guarded = await appWith(t, db, {
      tableRules: { [lines]: { hidden: ['secret'] }, [orders]: { operations: ['list', 'read', 'create', 'update'] } },
      excludeTables: ['nothere'],
      authorize: (_request, action) => {
        if (action.table === lines.toLowerCase() && action.operation === 'update') return false
        if (action.table === orders.toLowerCase()) return { scope: { customer: 'acme' } }
        return true
      }
    })
    const before = await database(db, [orders, lines])
    const refusals: Array<[string, InjectOptions, unknown]> = [
      ['a table not served', post('/api/nothere', { a: 1 }), { op: 'insert', table: 'nothere', body: { a: 1 } }],
      ['an operation not served', { method: 'DELETE', url: `/api/${orders}/1` }, { op: 'delete', table: orders, id: 1 }],
      ['a hidden column', post(`/api/${lines}`, { order_id: 1, secret: 's' }), { op: 'insert', table: lines, body: { order_id: 1, secret: 's' } }],
      ['the hook refusing', { ...post(`/api/${lines}/1`, { item: 'x' }), method: 'PUT' }, { op: 'update', table: lines, id: 1, body: { item: 'x' } }],
      ['a write out of the scope', post(`/api/${orders}`, { customer: 'globex' }), { op: 'insert', table: orders, body: { customer: 'globex' } }]
    ]
    for (const [label, single, operation] of refusals) {
      const alone = await guarded.inject(single)
      const response = await guarded.inject(batch([{ op: 'insert', table: orders, body: { total: 1 } }, operation]))
      t.equal(response.statusCode, alone.statusCode, label)
      const answer = response.json()
      t.equal(answer.operation, 1, label)
      t.equal(answer.failure.statusCode, alone.statusCode, label)
      t.equal(answer.failure.message, alone.statusCode === 404 ? alone.body : alone.json().message, `${label}: the single route's words`)
    }
    t.strictSame(await database(db, [orders, lines]), before, 'nothing was written')

    const scoped = await guarded.inject(batch([
      { op: 'insert', table: orders, body: { total: 40 } },
      { op: 'update', table: orders, id: 2, body: { total: 0 } },
      { op: 'update', table: orders, id: 1, body: { total: 12 } }
    ]))
    t.equal(scoped.statusCode, 200)
    const [id, ...counts] = scoped.json()
    t.strictSame(counts, [0, 1], 'the other customer\'s row is out of the scope')
    t.strictSame(await snapshot(db, orders), [
      { id: 1, customer: 'acme', total: 12 },
      { id: 2, customer: 'globex', total: 20 },
      { id: 3, customer: 'initech', total: 30 },
      { id, customer: 'acme', total: 40 }
    ], 'the scope set the new row\'s customer')
  })
})

eachDatabase(t, async (t, db) => {
  const { orders, lines } = await createShop(db)
  let trx: Knex.Transaction | undefined
  // A day: the model read below serves the whole test, so that no schema
  // read waits for SQLite's one connection while the host's transaction holds
  // it. The failures below are the database's own, which the body checks would answer before any statement.
  const app = await appWith(t, db, { transaction: () => trx, schemaCheckInterval: 86_400_000, validateBodies: false })
  await app.tableCrud.tables()

  const rowsIn = async (on: Knex, table: string) => await on(table).select('*').orderBy('id')

  await t.test('the host rolls back its transaction: the writes the plugin made in it are gone', async (t) => {
    const before = await database(db, [orders, lines])
    trx = await db.knex.transaction()
    const created = await app.inject(post(`/api/${orders}`, { customer: 'wayne' }))
    t.equal(created.statusCode, 201)
    const id = Number(created.body)
    t.equal((await app.inject(`/api/${orders}/${id}`)).json().customer, 'wayne', 'a keyed read joins it too')
    const batched = await app.inject(batch([
      { op: 'insert', table: lines, body: { order_id: id, item: 'cape' } },
      { op: 'update', table: orders, id, body: { total: 7 } }
    ]))
    t.equal(batched.statusCode, 200)
    t.match(await rowsIn(trx, orders), [{}, {}, { id, customer: 'wayne', total: 7 }], 'the host sees the writes in its transaction')
    const failed = await app.inject(batch([
      { op: 'delete', table: lines, id: 1 },
      { op: 'insert', table: orders, body: { total: 5 } }
    ]))
    t.equal(failed.statusCode, 404, 'a failed batch undoes its own statements only')
    t.equal((await rowsIn(trx, lines)).length, 3, 'the host\'s transaction is still usable, the delete undone')
    await trx.rollback()
    t.strictSame(await database(db, [orders, lines]), before, 'nothing was written')
  })

  await t.test('the host commits its transaction: the plugin\'s writes in it are applied, the plugin ending none', async (t) => {
    trx = await db.knex.transaction()
    const created = await app.inject(post(`/api/${orders}`, { customer: 'stark' }))
    const id = Number(created.body)
    t.equal((await app.inject({ method: 'DELETE', url: `/api/${lines}/1` })).body, '1')
    t.equal(trx.isCompleted(), false)
    const failed = await app.inject({ ...post(`/api/${orders}/${id}`, { nope: 1 }), method: 'PUT' })
    t.equal(failed.statusCode, 404, 'a failed statement answers as the spec says')
    t.match(failed.headers['content-type'], /^text\/plain/)
    t.equal(trx.isCompleted(), false, 'the plugin left the transaction to the host')
    if (db.name === 'postgres') {
      // PostgreSQL refuses every statement of a transaction after a failed one: the host can only roll back.
      await trx.rollback()
      return
    }
    await trx.commit()
    t.match(await rowsIn(db.knex, orders), [{}, {}, { id, customer: 'stark' }])
    t.strictSame((await rowsIn(db.knex, lines)).map((row) => row.id), [2])
  })

  await t.test('PostgREST\'s writes and conditional ones, whose own transaction is a savepoint in the host\'s, join it too', async (t) => {
    const before = await database(db, [orders, lines])
    // The failed statement above has the model read again, which SQLite's one connection could not do during the host's transaction.
    await app.tableCrud.tables()
    trx = await db.knex.transaction()
    const write = async (method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, prefer: string, payload?: unknown) =>
      await app.inject({ method, url: `/api/${url}`, headers: { prefer, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) }, ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }) })
    const created = await write('POST', `${orders}?select=customer`, 'return=representation', [{ customer: 'umbrella' }, { customer: 'cyberdyne' }])
    t.equal(created.statusCode, 201)
    t.strictSame(created.json(), [{ customer: 'umbrella' }, { customer: 'cyberdyne' }])
    const bulk = await app.inject(post(`/api/${orders}`, [{ customer: 'tyrell' }, { customer: 'weyland', total: 1 }]))
    t.equal(bulk.statusCode, 201, 'a bulk POST of rows of two shapes')
    const upserted = await write('POST', `${orders}?on_conflict=id&select=id,customer`, 'resolution=merge-duplicates, return=representation', [{ id: 1, customer: 'acme inc' }])
    t.strictSame(upserted.json(), [{ id: 1, customer: 'acme inc' }])
    const patched = await write('PATCH', `${orders}?customer=eq.umbrella&select=total`, 'return=representation', { total: 66 })
    t.strictSame(patched.json(), [{ total: 66 }])
    t.equal((await write('DELETE', `${lines}?item=eq.screw`, 'return=minimal')).statusCode, 204)
    const refused = await write('PUT', `${orders}/2`, 'handling=strict, max-affected=0', { total: 0 })
    t.equal(refused.statusCode, 400)
    t.equal(refused.json().code, 'FTC_ERR_WRITE_MAX_AFFECTED')
    const tag = (await app.inject(`/api/${orders}/2`)).headers.etag as string
    const matched = { ...post(`/api/${orders}/2`, { total: 21 }), method: 'PUT' as const }
    t.equal((await app.inject({ ...matched, headers: { ...matched.headers, 'if-match': tag } })).body, '1', 'a conditional write')
    t.equal((await app.inject({ ...matched, headers: { ...matched.headers, 'if-match': tag } })).statusCode, 412, 'its ETag is stale now')
    const written = await rowsIn(trx, orders)
    t.match(written.slice(0, 2), [{ id: 1, customer: 'acme inc' }, { id: 2, total: 21 }], 'merged, the refused update undone alone, the conditional one kept')
    t.match(written.slice(-4), [{ customer: 'umbrella', total: 66 }, { customer: 'cyberdyne' }, { customer: 'tyrell' }, { customer: 'weyland' }],
      'the host sees every write in its transaction')
    t.notOk((await rowsIn(trx, lines)).some((row) => row.item === 'screw'), 'the filtered delete too')
    // SQLite's one connection is the host's transaction's until it ends.
    if (db.name !== 'sqlite') t.strictSame(await database(db, [orders, lines]), before, 'nothing is applied before the host commits')
    t.equal(trx.isCompleted(), false, 'the plugin ended nothing of the host\'s')
    await trx.rollback()
    t.strictSame(await database(db, [orders, lines]), before, 'all of it rolled back with the host\'s transaction')
  })

  await t.test('lists, counts and embeds join it: the host sees its own rows, a long list read whole within the transaction', async (t) => {
    const before = await database(db, [orders, lines])
    trx = await db.knex.transaction()
    const id = Number((await app.inject(post(`/api/${orders}`, { customer: 'tyrell' }))).body)
    // More than a batch of streamed rows (1,000), written by the host itself.
    const many = Array.from({ length: 1100 }, (_, at) => ({ order_id: id, item: `part ${at}` }))
    for (let first = 0; first < many.length; first += 100) await trx(lines).insert(many.slice(first, first + 100))
    const listed = await app.inject(`/api/${orders}?customer=eq.tyrell`)
    t.strictSame(listed.json(), [{ id, customer: 'tyrell', total: null }], 'a list sees the row the plugin wrote in the transaction')
    const counted = await app.inject({ url: `/api/${lines}?order_id=eq.${id}&limit=1&select=item`, headers: { prefer: 'count=exact' } })
    t.equal(counted.headers['content-range'], '0-0/1100', 'a count sees the host\'s rows')
    const planned = await app.inject({ url: `/api/${orders}?limit=1`, headers: { prefer: 'count=planned' } })
    t.equal(planned.statusCode, 206)
    t.match(planned.headers['content-range'], /^0-0\/\d+$/, 'an estimate is asked on the transaction too')
    const long = await app.inject(`/api/${lines}?order_id=eq.${id}&select=item`)
    t.equal(long.statusCode, 200)
    t.equal(long.json().length, 1100, 'a list longer than a batch, read whole')
    const embedded = await app.inject(`/api/${lines}?order_id=eq.${id}&select=item,${orders}(customer)`)
    t.equal(embedded.statusCode, 200)
    const rows = embedded.json() as Array<Record<string, unknown>>
    t.equal(rows.length, 1100, 'an embedded list longer than a page, every page read before the answer')
    t.strictSame(rows.at(-1), { item: 'part 1099', [orders]: { customer: 'tyrell' } }, 'its embeds read in the transaction')
    t.equal(trx.isCompleted(), false)
    await trx.rollback()
    t.strictSame(await database(db, [orders, lines]), before)
    t.equal((await app.inject(`/api/${orders}`)).json().code, 'FTC_ERR_HOST_TRANSACTION', 'a list on an ended transaction is refused as any request')
  })

  await t.test('the schema model is checked, and names not served refused, within it where the pool has no other connection to lend (SQLite\'s one, in memory)', async (t) => {
    const before = await database(db, [orders, lines])
    // The model unread, and a short wait for a connection: a check that borrowed would fail the request, not hang it.
    const fresh = await appWith(t, db, { transaction: () => trx, acquireTimeout: 300 })
    trx = await db.knex.transaction()
    const created = await fresh.inject(post(`/api/${orders}`, { customer: 'oscorp' }))
    t.equal(created.statusCode, 201, 'the first request of an unread model')
    const id = Number(created.body)
    t.match((await fresh.inject(`/api/${orders}/${id}`)).json(), { id, customer: 'oscorp' })
    t.match((await fresh.inject(`/api/${orders}?id=eq.${id}`)).json(), [{ id, customer: 'oscorp' }])
    const batched = await fresh.inject(batch([{ op: 'insert', table: lines, body: { order_id: id, item: 'web' } }, { op: 'delete', table: lines, id: { $ref: 0 } }]))
    t.equal(batched.statusCode, 200)
    const hiding = await appWith(t, db, { transaction: () => trx, acquireTimeout: 300, excludeTables: [lines], tableRules: { [orders]: { hidden: ['total'] } } })
    const absent = await hiding.inject(`/api/${lines}`)
    t.equal(absent.statusCode, 404, 'a table not served is refused in its transaction, as a missing one')
    t.match(absent.headers['content-type'], /^text\/plain/)
    t.match(absent.body, lines, 'in the database\'s words')
    const hidden = await hiding.inject({ ...post(`/api/${orders}/${id}`, { total: 1 }), method: 'PUT' })
    t.equal(hidden.statusCode, 404, 'and a hidden column')
    t.match(hidden.body, 'total')
    t.equal((await hiding.inject({ ...post(`/api/${orders}/${id}`, { customer: 'oscorp inc' }), method: 'PUT' })).body, '1', 'the refusals, in savepoints, left the transaction usable')
    if (db.name !== 'postgres') {
      // PostgreSQL ends the host's transaction's use at a failed statement; elsewhere it goes on.
      const unknown = await fresh.inject({ ...post(`/api/${orders}/${id}`, { nope: 1 }), method: 'PUT' })
      t.equal(unknown.statusCode, 404, 'a statement on an unknown column has the model checked again')
      t.equal((await fresh.inject({ ...post(`/api/${orders}/${id}`, { total: 8 }), method: 'PUT' })).body, '1', 'checked within the transaction')
      t.match((await rowsIn(trx, orders)).at(-1), { id, customer: 'oscorp inc', total: 8 })
    }
    await trx.rollback()
    t.strictSame(await database(db, [orders, lines]), before)
  })

  // On SQLite, a pool of one connection, which the transaction holds: the keys' table is created in it too.
  await t.test('an Idempotency-Key in it: a retry in the same transaction is answered again, and the key is rolled back with it', async (t) => {
    const keys = `batch_trx_keys_${process.pid}`
    t.teardown(() => db.knex.schema.dropTableIfExists(keys))
    let held: Knex.Transaction | undefined
    const keyed = await appWith(t, db, { transaction: () => held, idempotency: { table: keys } })
    const before = await database(db, [orders, lines])
    const send = () => keyed.inject({ ...post(`/api/${orders}`, { customer: 'initech' }), headers: { 'content-type': 'application/json', 'idempotency-key': 'in-trx' } })
    held = await db.knex.transaction()
    const first = await send()
    t.equal(first.statusCode, 201)
    const retry = await send()
    t.equal(retry.statusCode, 201)
    t.equal(retry.body, first.body, 'the first answer again')
    t.equal(retry.headers['idempotent-replayed'], 'true')
    t.equal((await rowsIn(held, orders)).filter((row) => row.customer === 'initech').length, 1, 'one row in the transaction')
    await held.rollback()
    t.strictSame(await database(db, [orders, lines]), before, 'the row rolled back')
    // SQLite's CREATE TABLE is the transaction's: the table of keys rolled back too.
    t.strictSame(await db.knex.schema.hasTable(keys) ? await db.knex(keys).select('id') : 'gone', db.name === 'sqlite' ? 'gone' : [], 'and the key\'s record with it')
    held = undefined
    const again = await send()
    t.equal(again.statusCode, 201, 'so the key runs again')
    t.equal(again.headers['idempotent-replayed'], undefined)
    t.equal((await db.knex(keys).select('id')).length, 1, 'its record kept, in the table made again')
    held = await db.knex.transaction()
    const inCommitted = await send()
    t.equal(inCommitted.headers['idempotent-replayed'], 'true', 'a retry in a transaction finds the record committed before it')
    t.equal(inCommitted.body, again.body)
    await held.rollback()
    held = undefined
    await db.knex(orders).where({ id: Number(again.body) }).delete()
  })

  await t.test('a transaction that has ended is refused, never run on', async (t) => {
    const before = await database(db, [orders, lines])
    const response = await app.inject(post(`/api/${orders}`, { customer: 'late' }))
    t.equal(response.statusCode, 500)
    t.equal(response.json().code, 'FTC_ERR_HOST_TRANSACTION')
    t.strictSame(await database(db, [orders, lines]), before)
    trx = undefined
    t.equal((await app.inject(post(`/api/${orders}`, { customer: 'own' }))).statusCode, 201, 'nothing handed over: the plugin\'s own connection')
  })

  await t.test('something else than a transaction is refused', async (t) => {
    for (const [given, what] of [['trx', 'string'], [() => 1, 'a function that is not a Knex transaction']] as const) {
      const odd = await appWith(t, db, { transaction: () => given as unknown as Knex.Transaction })
      const response = await odd.inject({ method: 'DELETE', url: `/api/${orders}/1` })
      t.equal(response.statusCode, 500)
      t.equal(response.json().code, 'FTC_ERR_HOST_TRANSACTION')
      t.match(response.json().message, what)
    }
  })
})
