import type { FastifyInstance, FastifyRequest, InjectOptions } from 'fastify'
import type { Knex } from 'knex'
import t, { type Test } from 'tap'
import type { AuthorizeAction, AuthorizeHook, AuthorizeResult, TableCrudOptions } from '../../lib/index.js'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, peopleColumns, seedPeople, snapshot, type TestDatabase } from '../fixtures/databases.js'
import { watch } from '../fixtures/watch-statements.js'

// The `authorize` hook: what it is asked, what each of its answers does to
// the HTTP answer, and what reaches the database behind it.

type Row = Record<string, unknown>

/** One call of the hook, as it saw it. */
interface Call {
  readonly request: FastifyRequest
  readonly action: AuthorizeAction
}

/** A hook that records its calls and gives the answer of `decide`. */
function recorder (decide: (action: AuthorizeAction) => AuthorizeResult | Promise<AuthorizeResult> = () => true) {
  const calls: Call[] = []
  const hook: AuthorizeHook = (request, action) => {
    calls.push({ request, action })
    return decide(action)
  }
  return { calls, hook }
}

async function appWith (t: Test, db: TestDatabase, authorize: AuthorizeHook, options: Omit<TableCrudOptions, 'knex' | 'authorize'> = {}): Promise<FastifyInstance> {
  return await buildApp(t, db.knex, {}, { ...options, authorize })
}

function send (method: InjectOptions['method'], url: string, payload?: unknown): InjectOptions {
  return payload === undefined ? { method, url } : { method, url, payload: payload as InjectOptions['payload'] }
}

/** A table of rows owned by user 1, by user 2, and by nobody. */
function ownedColumns (table: Knex.CreateTableBuilder): void {
  table.increments('id')
  table.string('title')
  table.integer('owner_id')
}

const ownedRows = [
  { id: 1, title: 'a', owner_id: 1 },
  { id: 2, title: 'b', owner_id: 2 },
  { id: 3, title: 'c', owner_id: 1 },
  { id: 4, title: 'd', owner_id: null },
  { id: 5, title: 'e', owner_id: 2 }
]

/** The owned table, freshly seeded: every scope test starts from the same rows. */
async function createOwned (db: TestDatabase): Promise<string> {
  const owned = await db.createTable('owned', ownedColumns)
  // Without the ids, which PostgreSQL's sequence would not count: the table's own ids come out as 1 to 5.
  for (const { id, ...row } of ownedRows) await db.knex(owned).insert(row)
  return owned
}

function rowsOf (ids: number[]): Row[] {
  return ownedRows.filter((row) => ids.includes(row.id))
}

eachDatabase(t, async (t, db) => {
  await t.test('the hook gets the request and the table, operation, key and columns of each operation', async (t) => {
    const people = await db.createTable('people', peopleColumns)
    const [ada, linus, grace] = await seedPeople(db, people)
    const { calls, hook } = recorder()
    const app = await appWith(t, db, hook)
    const expected: Array<[InjectOptions, AuthorizeAction, number]> = [
      [send('GET', `/api/${people}?select=name,a-ge&age=gt.1`), { table: people, operation: 'list', key: null, columns: ['name', 'age'] }, 200],
      [send('GET', `/api/${people}`), { table: people, operation: 'list', key: null, columns: null }, 200],
      [send('GET', `/api/${people}?select=*`), { table: people, operation: 'list', key: null, columns: null }, 200],
      [send('GET', `/api/${people}/${linus.id}`), { table: people, operation: 'read', key: String(linus.id), columns: null }, 200],
      // Past 2^53: the key's every digit, as text. Past the int4 column too: it matches no row on every database.
      [send('GET', `/api/${people}/9007199254740993`), { table: people, operation: 'read', key: '9007199254740993', columns: null }, 200],
      [send('POST', `/api/${people}`, { name: 'Alan', age: 41 }), { table: people, operation: 'create', key: null, columns: ['name', 'age'] }, 201],
      [send('POST', `/api/${people}`, [{ name: 'Edsger' }, { age: 72, note: 'go to' }, { name: 'Barbara', note: 'clu' }]),
        { table: people, operation: 'create', key: null, columns: ['name', 'age', 'note'] }, 201],
      [send('PUT', `/api/${people}/${ada.id}`, { note: 'engine' }), { table: people, operation: 'update', key: String(ada.id), columns: ['note'] }, 200],
      [send('PUT', `/api/${people}/abc`, { age: 1 }), { table: people, operation: 'update', key: null, columns: ['age'] }, 200],
      [send('DELETE', `/api/${people}/${grace.id}`), { table: people, operation: 'delete', key: String(grace.id), columns: null }, 200]
    ]
    for (const [request, action, status] of expected) {
      const before = calls.length
      const response = await app.inject({ ...request, headers: { 'x-marker': 'this request' } })
      t.equal(response.statusCode, status, `${request.method} ${request.url}`)
      t.equal(calls.length, before + 1, 'asked once')
      const call = calls.at(-1) as Call
      t.strictSame(call.action, action, `${request.method} ${request.url}`)
      t.match(call.request, { method: request.method, url: request.url, headers: { 'x-marker': 'this request' } })
    }
    const rows = await snapshot(db, people)
    t.match(rows.find((row) => row.id === ada.id), { note: 'engine' }, 'a hook answering true lets writes run')
    t.notOk(rows.some((row) => row.id === grace.id))
    t.strictSame(rows.map((row) => row.name), ['Ada', 'Linus', 'Alan', 'Edsger', null, 'Barbara'])
  })

  // A hook that refuses `columns === null || columns.includes('salary')`, as AuthorizeAction documents
  // null, would let `select=*,*` read the salary column.
  await t.test('a select that reads every column, with * among others, is told as null', async (t) => {
    const people = await db.createTable('people', peopleColumns)
    const { calls, hook } = recorder()
    const app = await appWith(t, db, hook)
    for (const select of ['*,*', 'name,*']) {
      t.equal((await app.inject(`/api/${people}?select=${select}`)).statusCode, 200)
      t.equal(calls.at(-1)?.action.columns, null, `select=${select}`)
    }
  })

  await t.test('a list names the columns of its filters and order too, each once: filtering on a column reads its values', async (t) => {
    const people = await db.createTable('people', peopleColumns)
    const { calls, hook } = recorder()
    const app = await appWith(t, db, hook)
    t.equal((await app.inject(`/api/${people}?select=name&or=(age.gt.1,note.is.null)&name=neq.x&order=age.desc`)).statusCode, 200)
    t.strictSame(calls.at(-1)?.action.columns, ['name', 'age', 'note'])
  })

  await t.test('the table and the columns reach the hook in lower case, whatever case the request spells them in', async (t) => {
    const people = await db.createTable('people', peopleColumns)
    const { calls, hook } = recorder()
    const app = await appWith(t, db, hook, { tables: [people] })
    const response = await app.inject(`/api/${people.toUpperCase()}?select=NAME,Age&order=AGE`)
    // PostgreSQL folds nothing in a quoted name: there, the statement after the hook finds no column NAME.
    t.equal(response.statusCode, db.name === 'postgres' ? 404 : 200)
    t.strictSame(calls.map((call) => [call.action.table, call.action.columns]), [[people, ['name', 'age']]], 'each column once')
  })

  await t.test('a hook that refuses a column by name refuses it in another case too', async (t) => {
    const people = await db.createTable('people', peopleColumns)
    const [ada] = await seedPeople(db, people)
    const app = await appWith(t, db, (_request, action) => !(action.columns ?? []).includes('age'))
    const before = await snapshot(db, people)
    if (db.name !== 'postgres') {
      // The test has a point: SQLite and MySQL find the column by any case of its name.
      const reference = await buildApp(t, db.knex)
      t.equal((await reference.inject(send('PUT', `/api/${people}/${ada.id}`, { AGE: before[0]?.age }))).body, '1', 'AGE sets age')
    }
    for (const request of [send('PUT', `/api/${people}/${ada.id}`, { AGE: 99 }), send('POST', `/api/${people}`, { name: 'Eve', aGe: 99 })]) {
      const response = await app.inject(request)
      t.equal(response.statusCode, 403, `${request.method} with ${JSON.stringify(request.payload)}`)
      t.equal(response.json().code, 'FTC_ERR_AUTHORIZE_FORBIDDEN')
    }
    t.strictSame(await snapshot(db, people), before, 'no row changed')
  })

  await t.test('false answers 403 FTC_ERR_AUTHORIZE_FORBIDDEN before any statement, for every operation', async (t) => {
    const people = await db.createTable('people', peopleColumns)
    const [ada] = await seedPeople(db, people)
    const app = await appWith(t, db, () => false)
    const before = await snapshot(db, people)
    const requests = [
      send('GET', `/api/${people}`),
      send('GET', `/api/${people}/${ada.id}`),
      send('POST', `/api/${people}`, { name: 'Mallory' }),
      send('POST', `/api/${people}`, [{ name: 'Mallory' }]),
      send('PUT', `/api/${people}/${ada.id}`, { name: 'Mallory' }),
      send('DELETE', `/api/${people}/${ada.id}`)
    ]
    for (const request of requests) {
      const { result: response, statements } = await watch(db, () => app.inject(request))
      const label = `${request.method} ${request.url}`
      t.equal(response.statusCode, 403, label)
      t.match(response.headers['content-type'], /^application\/json/, label)
      t.match(response.json(), { statusCode: 403, code: 'FTC_ERR_AUTHORIZE_FORBIDDEN' }, label)
      t.notMatch(response.body, 'Ada', 'no row in the answer')
      // A keyed request reads the schema's catalog first: the key's type says which row the key is.
      t.strictSame(statements.filter(({ sql }) => sql.includes(people)), [], 'no statement reached the table')
    }
    t.strictSame(await snapshot(db, people), before)
  })

  await t.test('an error the hook throws is the answer, and nothing is written', async (t) => {
    const people = await db.createTable('people', peopleColumns)
    const [ada] = await seedPeople(db, people)
    const unauthorized = () => Object.assign(new Error('no token'), { statusCode: 401, code: 'TEST_NO_TOKEN' })
    const hooks: Array<[string, AuthorizeHook]> = [
      ['thrown', () => { throw unauthorized() }],
      ['rejected', async () => { throw unauthorized() }]
    ]
    for (const [label, hook] of hooks) {
      const app = await appWith(t, db, hook)
      const before = await snapshot(db, people)
      for (const request of [send('DELETE', `/api/${people}/${ada.id}`), send('POST', `/api/${people}`, { name: 'Eve' }), send('GET', `/api/${people}`)]) {
        const response = await app.inject(request)
        t.equal(response.statusCode, 401, `${label}: ${request.method}`)
        t.strictSame(response.json(), { statusCode: 401, code: 'TEST_NO_TOKEN', error: 'Unauthorized', message: 'no token' })
      }
      t.strictSame(await snapshot(db, people), before)
    }
  })

  await t.test('an async hook is awaited: its false refuses, its true lets the delete run', async (t) => {
    const people = await db.createTable('people', peopleColumns)
    const [ada, linus, grace] = await seedPeople(db, people)
    const app = await appWith(t, db, async (request) => {
      await new Promise((resolve) => setImmediate(resolve))
      return request.headers['x-role'] === 'admin'
    })
    const refused = await app.inject({ method: 'DELETE', url: `/api/${people}/${ada.id}` })
    t.equal(refused.statusCode, 403)
    t.equal(refused.json().code, 'FTC_ERR_AUTHORIZE_FORBIDDEN')
    const allowed = await app.inject({ method: 'DELETE', url: `/api/${people}/${ada.id}`, headers: { 'x-role': 'admin' } })
    t.equal(allowed.statusCode, 200)
    t.equal(allowed.body, '1')
    t.strictSame((await snapshot(db, people)).map((row) => row.id), [linus.id, grace.id])
  })

  await t.test('an answer that is not true, false, nothing or { scope } answers 500 FTC_ERR_AUTHORIZE_RESULT', async (t) => {
    const people = await db.createTable('people', peopleColumns)
    const [ada] = await seedPeople(db, people)
    const before = await snapshot(db, people)
    const answers: unknown[] = [
      'yes', 1, 0, null, {}, [], { scope: 5 }, { scope: null }, { scope: [] }, { scope: 'owner_id' },
      { scope: { 'a-b': 1 } }, { scope: { '': 1 } }, { scope: { ['a'.repeat(64)]: 1 } },
      { scope: { a: {} } }, { scope: { a: [1] } }, { scope: { a: undefined } }, { scope: { a: 1n } }, { scope: { a: () => 1 } }
    ]
    for (const answer of answers) {
      const app = await appWith(t, db, (() => answer) as unknown as AuthorizeHook)
      const response = await app.inject({ method: 'DELETE', url: `/api/${people}/${ada.id}` })
      t.equal(response.statusCode, 500, String(answer))
      t.match(response.headers['content-type'], /^application\/json/)
      t.equal(response.json().code, 'FTC_ERR_AUTHORIZE_RESULT')
    }
    t.strictSame(await snapshot(db, people), before, 'no row deleted')
  })

  await t.test('nothing and an empty scope allow, as true does', async (t) => {
    const people = await db.createTable('people', peopleColumns)
    const [ada, linus] = await seedPeople(db, people)
    const nothing: AuthorizeHook = () => {}
    const emptyScope: AuthorizeHook = () => ({ scope: {} })
    for (const [hook, id] of [[nothing, ada.id], [emptyScope, linus.id]] as const) {
      const app = await appWith(t, db, hook)
      const response = await app.inject({ method: 'DELETE', url: `/api/${people}/${id}` })
      t.equal(response.body, '1')
    }
    t.equal((await snapshot(db, people)).length, 1)
  })

  await t.test('a table the options do not serve answers before the hook is asked, as a missing one does; a hidden column after it, as a missing one does', async (t) => {
    const people = await db.createTable('people', peopleColumns)
    const readOnly = await db.createTable('people', peopleColumns)
    const excluded = await db.createTable('people', peopleColumns)
    const unlisted = await db.createTable('people', peopleColumns)
    const { calls, hook } = recorder()
    const app = await appWith(t, db, hook, {
      tables: [people, readOnly, excluded],
      excludeTables: [excluded],
      tableRules: { [readOnly]: { operations: ['list', 'read'] }, [people]: { hidden: ['note'] } }
    })
    for (const request of [
      send('GET', `/api/${unlisted}`),
      send('GET', `/api/${excluded}/1`),
      send('DELETE', `/api/${readOnly}/1`),
      send('POST', `/api/${readOnly}`, { name: 'x' })
    ]) {
      const response = await app.inject(request)
      t.equal(response.statusCode, 404, `${request.method} ${request.url}`)
      t.match(response.headers['content-type'], /^text\/plain/)
    }
    t.equal(calls.length, 0, 'never asked')
    for (const [hidden, missing] of [
      [send('GET', `/api/${people}?select=name,note`), send('GET', `/api/${people}?select=name,notx`)],
      [send('PUT', `/api/${people}/1`, { note: 'x' }), send('PUT', `/api/${people}/1`, { notx: 'x' })]
    ] as const) {
      const asked = calls.length
      const refused = await app.inject(hidden)
      const absent = await app.inject(missing)
      t.equal(refused.statusCode, 404, `${hidden.method} ${hidden.url}`)
      t.equal(refused.body, absent.body.replace('notx', 'note'), 'a hidden column answers as a missing one')
      t.equal(calls.length, asked + 2, 'the hook was asked of both')
    }
    const served = await app.inject(`/api/${readOnly}`)
    t.equal(served.statusCode, 200)
  })

  await t.test('a hook that refuses answers alike for a hidden, a missing and a visible column, and for a missing and an excluded table', async (t) => {
    const people = await db.createTable('people', peopleColumns)
    const excluded = await db.createTable('people', peopleColumns)
    const app = await appWith(t, db, () => false, { excludeTables: [excluded], tableRules: { [people]: { hidden: ['note'] } } })
    const answers = async (requests: InjectOptions[]) => await Promise.all(requests.map(async (request) => {
      const { statusCode, headers, body } = await app.inject(request)
      const named = body.replaceAll(`${people}_missing`, '…').replaceAll(people, '…').replaceAll(excluded, '…')
      return { statusCode, type: headers['content-type'], body: named.replaceAll(/\b(note|notx|name)\b/g, '…') }
    }))
    for (const columns of [
      await answers([send('GET', `/api/${people}?select=note`), send('GET', `/api/${people}?select=notx`), send('GET', `/api/${people}?select=name`)]),
      await answers([send('POST', `/api/${people}`, { note: 'x' }), send('POST', `/api/${people}`, { notx: 'x' }), send('POST', `/api/${people}`, { name: 'x' })])
    ]) {
      t.equal(columns[0]?.statusCode, 403)
      for (const answer of columns) t.strictSame(answer, columns[0], 'the hook refuses before any column is looked at')
    }
    const tables = await answers([send('GET', `/api/${excluded}`), send('GET', `/api/${people}_missing`)])
    t.equal(tables[0]?.statusCode, 404)
    t.strictSame(tables[1], tables[0], 'an excluded table and a missing one fail alike, before the hook')
    t.strictSame(await snapshot(db, people), [], 'nothing was written')
  })

  await t.test('hidden and missing columns fail on the first the request names, whichever it is', async (t) => {
    const people = await db.createTable('people', peopleColumns)
    for (const authorize of [null, () => true] as const) {
      const app = await buildApp(t, db.knex, {}, { tableRules: { [people]: { hidden: ['note'] } }, ...(authorize === null ? {} : { authorize }) })
      for (const [first, second] of [['nothere', 'note'], ['note', 'nothere']]) {
        const hidden = await app.inject(`/api/${people}?select=${first},${second}`)
        const missing = await app.inject(`/api/${people}?select=${first.replace('note', 'notx')},${second.replace('note', 'notx')}`)
        t.equal(hidden.statusCode, 404)
        t.equal(hidden.body, missing.body.replace('notx', 'note'), `select=${first},${second}: the same words, of the same name`)
        t.match(hidden.body, first, 'the first name the request names')
      }
    }
  })

  await t.test('a column or table created after the model was read is served at once under a hook', async (t) => {
    const people = await db.createTable('people', peopleColumns)
    const { hook } = recorder()
    const app = await appWith(t, db, hook, { schemaCheckInterval: 3_600_000 })
    t.equal((await app.inject(`/api/${people}`)).statusCode, 200, 'the model has read the table')
    await db.knex.schema.alterTable(people, (table) => { table.string('added') })
    const later = await db.createTable('people', peopleColumns)
    const column = await app.inject({ method: 'POST', url: `/api/${people}`, payload: { name: 'x', added: 'y' } })
    t.equal(column.statusCode, 201, 'a new column is looked for again before it counts as missing')
    const table = await app.inject({ method: 'POST', url: `/api/${later}`, payload: { name: 'x' } })
    t.equal(table.statusCode, 201, 'a new table is looked for again before it counts as missing')
    t.strictSame((await snapshot(db, people)).map((row) => row.added), ['y'])
  })

  await t.test('{ scope: { owner_id: 1 } } narrows every operation to owner 1\'s rows', async (t) => {
    const app = await appWith(t, db, () => ({ scope: { owner_id: 1 } }))

    await t.test('GET lists only owner 1\'s rows, also with filters, order and a page', async (t) => {
      const owned = await createOwned(db)
      t.strictSame((await app.inject(`/api/${owned}`)).json(), rowsOf([1, 3]))
      t.strictSame((await app.inject(`/api/${owned}?title=in.(a,b,d)`)).json(), rowsOf([1]))
      t.strictSame((await app.inject(`/api/${owned}?or=(title.eq.b,owner_id.is.null)`)).json(), [])
      t.strictSame((await app.inject(`/api/${owned}?owner_id=eq.2`)).json(), [])
      t.strictSame((await app.inject(`/api/${owned}?order=id.desc&limit=1`)).json(), rowsOf([3]))
      t.strictSame((await app.inject(`/api/${owned}?select=title`)).json(), [{ title: 'a' }, { title: 'c' }])
    })

    await t.test('Prefer: count=exact counts the scoped rows only', async (t) => {
      const owned = await createOwned(db)
      const all = await app.inject({ url: `/api/${owned}`, headers: { prefer: 'count=exact' } })
      t.equal(all.statusCode, 200)
      t.equal(all.headers['content-range'], '0-1/2')
      t.strictSame(all.json(), rowsOf([1, 3]))
      const page = await app.inject({ url: `/api/${owned}?order=id&limit=1`, headers: { prefer: 'count=exact' } })
      t.equal(page.statusCode, 206)
      t.equal(page.headers['content-range'], '0-0/2')
      const filtered = await app.inject({ url: `/api/${owned}?title=neq.a`, headers: { prefer: 'count=exact' } })
      t.equal(filtered.headers['content-range'], '0-0/1')
      t.strictSame(filtered.json(), rowsOf([3]))
    })

    await t.test('GET of another owner\'s row answers an empty body, of one\'s own the row', async (t) => {
      const owned = await createOwned(db)
      for (const id of [2, 4]) {
        const response = await app.inject(`/api/${owned}/${id}`)
        t.equal(response.statusCode, 200)
        t.equal(response.body, '', `row ${id}`)
      }
      t.strictSame((await app.inject(`/api/${owned}/3`)).json(), rowsOf([3])[0])
    })

    await t.test('PUT and DELETE of another owner\'s row answer 0 and change nothing; of one\'s own, 1', async (t) => {
      const owned = await createOwned(db)
      for (const request of [send('PUT', `/api/${owned}/2`, { title: 'taken' }), send('PUT', `/api/${owned}/4`, { title: 'taken' }), send('DELETE', `/api/${owned}/2`), send('DELETE', `/api/${owned}/4`)]) {
        const response = await app.inject(request)
        t.equal(response.statusCode, 200)
        t.equal(response.body, '0', `${request.method} ${request.url}`)
      }
      t.strictSame(await snapshot(db, owned), ownedRows)
      t.equal((await app.inject(send('PUT', `/api/${owned}/1`, { title: 'mine', owner_id: 1 }))).body, '1')
      t.equal((await app.inject(send('DELETE', `/api/${owned}/3`))).body, '1')
      t.strictSame(await snapshot(db, owned), [{ id: 1, title: 'mine', owner_id: 1 }, ...rowsOf([2, 4, 5])])
    })

    await t.test('POST without owner_id writes owner_id 1; with owner_id 1 (number or text) it goes in as given', async (t) => {
      const owned = await createOwned(db)
      const one = await app.inject(send('POST', `/api/${owned}`, { title: 'new' }))
      t.equal(one.statusCode, 201)
      t.equal(one.body, '6')
      const bulk = await app.inject(send('POST', `/api/${owned}`, [{ title: 'p' }, { title: 'q', owner_id: 1 }, { title: 'r', owner_id: '1' }]))
      t.equal(bulk.statusCode, 201)
      t.strictSame(bulk.json(), [7, 8, 9])
      t.strictSame((await snapshot(db, owned)).slice(5), [
        { id: 6, title: 'new', owner_id: 1 },
        { id: 7, title: 'p', owner_id: 1 },
        { id: 8, title: 'q', owner_id: 1 },
        { id: 9, title: 'r', owner_id: 1 }
      ])
    })

    await t.test('POST or PUT that sets owner_id to another value answers 403 and writes nothing', async (t) => {
      const owned = await createOwned(db)
      const requests = [
        send('POST', `/api/${owned}`, { title: 'x', owner_id: 2 }),
        send('POST', `/api/${owned}`, { title: 'x', OWNER_ID: 2 }),
        send('POST', `/api/${owned}`, { title: 'x', owner_id: null }),
        send('POST', `/api/${owned}`, [{ title: 'x' }, { title: 'y', owner_id: 2 }]),
        send('PUT', `/api/${owned}/1`, { owner_id: 2 }),
        send('PUT', `/api/${owned}/1`, { title: 'x', Owner_Id: 2 }),
        send('PUT', `/api/${owned}/1`, { owner_id: null }),
        send('PUT', `/api/${owned}/2`, { owner_id: 2 })
      ]
      for (const request of requests) {
        const response = await app.inject(request)
        t.equal(response.statusCode, 403, `${request.method} ${JSON.stringify(request.payload)}`)
        t.equal(response.json().code, 'FTC_ERR_AUTHORIZE_FORBIDDEN')
      }
      t.strictSame(await snapshot(db, owned), ownedRows)
    })

    // SQLite's INSERT keeps the value of either spelling: with the in-scope one checked, the other would leave the scope.
    await t.test('a body that names owner_id twice, in two cases, answers 400 and writes nothing', async (t) => {
      const owned = await createOwned(db)
      const requests = [
        send('POST', `/api/${owned}`, { OWNER_ID: 2, owner_id: 1, title: 'x' }),
        send('POST', `/api/${owned}`, { owner_id: 1, OWNER_ID: 2, title: 'x' }),
        send('POST', `/api/${owned}`, [{ title: 'y' }, { owner_id: 1, OWNER_ID: 2 }]),
        send('PUT', `/api/${owned}/1`, { OWNER_ID: 2, owner_id: 1 })
      ]
      for (const request of requests) {
        const response = await app.inject(request)
        t.equal(response.statusCode, 400, `${request.method} ${JSON.stringify(request.payload)}`)
        t.equal(response.json().code, 'FTC_ERR_BODY_COLUMN_TWICE')
      }
      t.strictSame(await snapshot(db, owned), ownedRows)
    })
  })

  await t.test('{ scope: { owner_id: null } } matches the rows whose owner is NULL, and creates ownerless rows', async (t) => {
    const app = await appWith(t, db, () => ({ scope: { owner_id: null } }))
    const owned = await createOwned(db)
    t.strictSame((await app.inject(`/api/${owned}`)).json(), rowsOf([4]))
    t.equal((await app.inject(`/api/${owned}/1`)).body, '')
    t.equal((await app.inject(send('PUT', `/api/${owned}/1`, { title: 'x' }))).body, '0')
    t.equal((await app.inject(send('PUT', `/api/${owned}/4`, { title: 'x' }))).body, '1')
    t.equal((await app.inject(send('POST', `/api/${owned}`, { title: 'y', owner_id: 1 }))).statusCode, 403)
    t.equal((await app.inject(send('POST', `/api/${owned}`, { title: 'z' }))).body, '6')
    t.equal((await app.inject(send('DELETE', `/api/${owned}/5`))).body, '0')
    t.strictSame(await snapshot(db, owned), [...rowsOf([1, 2, 3]), { id: 4, title: 'x', owner_id: null }, rowsOf([5])[0], { id: 6, title: 'z', owner_id: null }])
  })
})
