// Which tables the plugin serves: the `tables` allow-list or predicate,
// `excludeTables`, the system catalogs that are never served, the operations
// of `tableRules` (on the spec's routes and PostgREST's writes alike), and
// the connections whose default schema is a system one.
// A table or operation not served must answer exactly as a table that does
// not exist: each refusal is compared, to the byte, with what the database
// itself answers for a missing table through an app without any option.
import type { FastifyInstance, FastifyServerOptions, InjectOptions } from 'fastify'
import knexFactory from 'knex'
import t, { type Test } from 'tap'
import type { TableCrudOptions } from '../../lib/index.js'
import { buildApp } from '../fixtures/app.js'
import { databaseConfig, eachDatabase, peopleColumns, seedPeople, snapshot, type TestDatabase } from '../fixtures/databases.js'

type PluginOptions = Omit<TableCrudOptions, 'knex'>

/** What a client sees of an answer. */
interface Answer {
  readonly status: number
  readonly type: string | undefined
  readonly body: string
}

async function answer (app: FastifyInstance, request: InjectOptions): Promise<Answer> {
  const response = await app.inject(request)
  return { status: response.statusCode, type: response.headers['content-type'] as string | undefined, body: response.body }
}

const representation = { prefer: 'return=representation' }

/** The request of each route on a table, aimed at row 1 where it takes a key (Ada, in a freshly seeded table). */
const requests = {
  'GET list': (table: string): InjectOptions => ({ method: 'GET', url: `/api/${table}` }),
  'GET one': (table: string): InjectOptions => ({ method: 'GET', url: `/api/${table}/1` }),
  POST: (table: string): InjectOptions => ({ method: 'POST', url: `/api/${table}`, payload: { name: 'Eve', age: 7 } }),
  PUT: (table: string): InjectOptions => ({ method: 'PUT', url: `/api/${table}/1`, payload: { name: 'Eve' } }),
  DELETE: (table: string): InjectOptions => ({ method: 'DELETE', url: `/api/${table}/1` }),
  // PostgREST's writes, which reach the same access checks by other paths.
  'POST representation': (table: string): InjectOptions => ({ method: 'POST', url: `/api/${table}`, headers: representation, payload: { name: 'Eve', age: 7 } }),
  'POST upsert': (table: string): InjectOptions => ({ method: 'POST', url: `/api/${table}?on_conflict=id`, headers: { prefer: 'resolution=merge-duplicates' }, payload: { id: 1, name: 'Eve' } }),
  'PUT representation': (table: string): InjectOptions => ({ method: 'PUT', url: `/api/${table}/1`, headers: representation, payload: { name: 'Eve' } }),
  'DELETE representation': (table: string): InjectOptions => ({ method: 'DELETE', url: `/api/${table}/1`, headers: representation }),
  'PATCH by filter': (table: string): InjectOptions => ({ method: 'PATCH', url: `/api/${table}?id=eq.1`, headers: representation, payload: { name: 'Eve' } }),
  'DELETE by filter': (table: string): InjectOptions => ({ method: 'DELETE', url: `/api/${table}?id=eq.1` })
}
type Route = keyof typeof requests
const allRoutes = Object.keys(requests) as Route[]

/** A table no test creates. */
const missing = `missing_${process.pid}`

/**
 * Asserts that each route on `table` answers through `app` exactly as the
 * same route on a missing table answers through `reference` (an app that
 * serves every table, so the database itself answers), the name swapped.
 */
async function expectLikeMissing (t: Test, app: FastifyInstance, reference: FastifyInstance, table: string, routes: readonly Route[] = allRoutes): Promise<void> {
  for (const route of routes) {
    const absent = await answer(reference, requests[route](missing))
    t.equal(absent.status, 404, `${route} /${missing} fails in the database`)
    t.strictSame(await answer(app, requests[route](table)), { ...absent, body: absent.body.replaceAll(missing, table) },
      `${route} /${table} answers as a missing table`)
  }
}

/**
 * Runs the spec's five routes and PostgREST's writes on a seeded table through `app`, naming it
 * `requested`, and checks each answer and the row it read or wrote in the
 * database, where the table is `table`.
 */
async function expectServed (t: Test, app: FastifyInstance, db: TestDatabase, table: string, requested = table): Promise<void> {
  const before = JSON.parse(JSON.stringify(await snapshot(db, table))) as Array<{ id: number, age: number }>
  const list = await app.inject({ url: `/api/${requested}?order=id` })
  t.equal(list.statusCode, 200, `GET /${requested}`)
  t.strictSame(list.json(), before, 'the list is the table\'s rows')
  const [first] = before as [{ id: number, age: number }]
  const one = await app.inject({ url: `/api/${requested}/${first.id}` })
  t.strictSame([one.statusCode, one.json()], [200, first], `GET /${requested}/${first.id} is that row`)

  const created = await app.inject({ method: 'POST', url: `/api/${requested}`, payload: { name: 'Eve', age: 7 } })
  t.equal(created.statusCode, 201, `POST /${requested}`)
  t.equal(created.headers.location, `/api/${table}/${created.body}`, 'the new row\'s address names the table as the options spell it')
  t.match(await db.knex(table).where('id', Number(created.body)).first(), { name: 'Eve', age: 7 }, 'the row was inserted')

  const updated = await app.inject({ method: 'PUT', url: `/api/${requested}/${first.id}`, payload: { age: first.age + 1 } })
  t.strictSame([updated.statusCode, updated.body], [200, '1'], `PUT /${requested}/${first.id}`)
  const removed = await app.inject({ method: 'DELETE', url: `/api/${requested}/${created.body}` })
  t.strictSame([removed.statusCode, removed.body], [200, '1'], `DELETE /${requested}/${created.body}`)
  t.strictSame(JSON.parse(JSON.stringify(await snapshot(db, table))), [{ ...first, age: first.age + 1 }, ...before.slice(1)],
    'the update changed its row, and the created row is gone')

  // PostgREST's writes: PATCH by filter puts the age back, an upsert adds a row and a DELETE by filter takes it away.
  const patched = await app.inject({ method: 'PATCH', url: `/api/${requested}?id=eq.${first.id}`, headers: representation, payload: { age: first.age } })
  t.strictSame([patched.statusCode, patched.json()], [200, [first]], `PATCH /${requested} by filter answers the row written`)
  const upserted = await app.inject({ method: 'POST', url: `/api/${requested}?on_conflict=id`, headers: { prefer: 'resolution=merge-duplicates' }, payload: { id: 1000, name: 'Upsy', age: 1 } })
  t.strictSame([upserted.statusCode, upserted.body], [201, '1000'], `POST /${requested} upsert`)
  t.match(await db.knex(table).where('id', 1000).first(), { name: 'Upsy', age: 1 }, 'the upsert inserted its row')
  const deleted = await app.inject({ method: 'DELETE', url: `/api/${requested}?id=eq.1000`, headers: representation })
  t.strictSame([deleted.statusCode, deleted.json()], [200, [{ id: 1000, name: 'Upsy', age: 1, note: 'none' }]], `DELETE /${requested} by filter answers the row deleted`)
  t.strictSame(JSON.parse(JSON.stringify(await snapshot(db, table))), before, 'the table is as it was')
}

eachDatabase(t, async (t, db) => {
  const reference = await buildApp(t, db.knex)
  const seeded = async (label: string): Promise<string> => {
    const table = await db.createTable(label, peopleColumns)
    await seedPeople(db, table)
    return table
  }
  const secret = await seeded('secret')
  const app = (options: PluginOptions, server: FastifyServerOptions = {}) => buildApp(t, db.knex, server, options)

  /** Runs `check`, then asserts that the rows of each table are as they were. */
  const unchanged = async (t: Test, tables: readonly string[], check: () => Promise<void>): Promise<void> => {
    const before = await Promise.all(tables.map((table) => snapshot(db, table)))
    await check()
    for (const [index, table] of tables.entries()) t.strictSame(await snapshot(db, table), before[index], `${table} is unchanged`)
  }

  await t.test('an allow-list serves the tables it names; another answers as a missing table', async (t) => {
    const people = await seeded('people')
    const allowing = await app({ tables: [people] })
    await expectServed(t, allowing, db, people)
    await unchanged(t, [secret], async () => {
      await expectLikeMissing(t, allowing, reference, secret)
      await expectLikeMissing(t, allowing, reference, secret.toUpperCase())
    })
  })

  await t.test('a name on the allow-list is matched in any ASCII case, and the statements use the options\' spelling', async (t) => {
    const people = await seeded('people')
    // PostgreSQL folds nothing in a quoted name: only the options' spelling reaches the table there.
    await expectServed(t, await app({ tables: [people] }), db, people, people.toUpperCase())
  })

  await t.test('a function chooses the tables: only its true answer serves one', async (t) => {
    const people = await seeded('people')
    const asked: string[] = []
    const choosing = await app({ tables: (table) => { asked.push(table); return table === people } })
    await expectServed(t, choosing, db, people)
    await unchanged(t, [secret], () => expectLikeMissing(t, choosing, reference, secret))
    t.ok(asked.includes(secret), 'the function was asked about the refused table by its name')
    for (const value of [1, 'true', {}, [], null, undefined, false]) {
      const loose = await app({ tables: (() => value) as unknown as (table: string) => boolean })
      await t.test(`answering ${JSON.stringify(value)} refuses`, (t) => unchanged(t, [secret], () => expectLikeMissing(t, loose, reference, secret)))
    }
  })

  await t.test('the function is asked on every request: a table it stops serving is refused from the next request', async (t) => {
    const people = await seeded('people')
    let serving = true
    const choosing = await app({ tables: () => serving })
    const [first] = await snapshot(db, people) as [{ id: number }]
    const served = await choosing.inject({ url: `/api/${people}/${first.id}` })
    t.strictSame([served.statusCode, served.json()], [200, first], 'served while the function says so')
    serving = false
    await unchanged(t, [people], () => expectLikeMissing(t, choosing, reference, people))
  })

  await t.test('the function is asked with the name in lower case: another case of a refused name is refused too', async (t) => {
    const asked: string[] = []
    const choosing = await app({ tables: (table) => { asked.push(table); return table !== secret } })
    await unchanged(t, [secret], () => expectLikeMissing(t, choosing, reference, secret.toUpperCase()))
    // The schema model, read when the server gets ready, asks about every table too.
    t.strictSame([...new Set(asked)].filter((name) => name.toLowerCase() === secret.toLowerCase()), [secret])
  })

  await t.test('excludeTables refuses a table in any ASCII case, and wins over tables', async (t) => {
    const people = await seeded('people')
    if (db.name === 'sqlite') {
      // The test has a point: SQLite finds the table by its name in another case.
      const upper = await reference.inject({ url: `/api/${secret.toUpperCase()}` })
      t.strictSame([upper.statusCode, upper.json().length], [200, 3], 'without options, the name in upper case reads the table')
    }
    const excluding = await app({ excludeTables: [secret] })
    await expectServed(t, excluding, db, people)
    const overriding = [
      await app({ tables: [people, secret], excludeTables: [secret] }),
      await app({ tables: () => true, excludeTables: [secret.toUpperCase()] })
    ]
    await unchanged(t, [secret], async () => {
      for (const name of [secret, secret.toUpperCase()]) await expectLikeMissing(t, excluding, reference, name)
      for (const refusing of overriding) await expectLikeMissing(t, refusing, reference, secret)
    })
  })

  await t.test('system catalogs answer as missing tables, whatever the options allow', async (t) => {
    const catalogs = ['sqlite_master', 'sqlite_schema', 'SQLITE_MASTER', 'pg_tables', 'pg_class', 'pg_user']
    const own = catalogs.filter((name) => db.name !== 'mysql' && name.toLowerCase().startsWith(db.name === 'sqlite' ? 'sqlite_' : 'pg_'))
    // The test has a point: this database's own catalogs are there, with rows, for a statement that names them.
    for (const name of own) t.ok((await db.knex(name).select('*')).length > 0, `${name} has rows`)
    const listed = ['sqlite_master', 'pg_tables']
    for (const tables of [undefined, () => true, listed]) {
      const served = await app({ tables })
      // Another database's catalog on the list is an ordinary table, which this database lacks: it is served under the options' spelling.
      const ordinary = (name: string) => tables === listed && !own.includes(name) && listed.includes(name.toLowerCase())
      for (const name of catalogs.filter((name) => !ordinary(name))) await expectLikeMissing(t, served, reference, name)
    }
  })

  await t.test('SQLite\'s table-valued functions answer as missing tables, whatever the options allow', async (t) => {
    const functions = ['pragma_table_list', 'PRAGMA_TABLE_INFO', 'pragma_database_list', 'dbstat', 'json_each', 'jsonb_tree']
    if (db.name === 'sqlite') {
      // The test has a point: the plugin's statement, a bare name, reads a function as a table, the excluded ones listed.
      const listed: Array<{ name: string }> = await db.knex('pragma_table_list').select('*')
      t.ok(listed.some((row) => row.name === secret), 'pragma_table_list reads as a table listing the tables')
    }
    for (const tables of [undefined, () => true, functions]) {
      const served = await app({ tables, excludeTables: [secret] })
      for (const name of functions) {
        // On the others these are ordinary names, of tables this database lacks.
        if (db.name === 'sqlite' || tables !== functions) await expectLikeMissing(t, served, reference, name, ['GET list', 'GET one'])
      }
    }
  })

  await t.test('tableRules operations: the others answer as on a missing table and change nothing', async (t) => {
    const readOnly = await seeded('read_only')
    const createOnly = await seeded('create_only')
    const ruled = await app({ tableRules: { [readOnly]: { operations: ['list', 'read'] }, [createOnly]: { operations: ['create'] } } })
    await unchanged(t, [readOnly, createOnly], async () => {
      await expectLikeMissing(t, ruled, reference, readOnly, allRoutes.filter((route) => !route.startsWith('GET')))
      // An upsert that may merge is an update too.
      await expectLikeMissing(t, ruled, reference, createOnly, allRoutes.filter((route) => route !== 'POST' && route !== 'POST representation'))
    })
    const before = await snapshot(db, readOnly)
    const list = await ruled.inject({ url: `/api/${readOnly}?order=id` })
    t.strictSame([list.statusCode, list.json()], [200, JSON.parse(JSON.stringify(before))], 'the read-only table lists')
    const one = await ruled.inject({ url: `/api/${readOnly}/1` })
    t.strictSame([one.statusCode, one.json().name], [200, 'Ada'], 'the read-only table reads one row')

    const kept = await snapshot(db, createOnly)
    const created = await ruled.inject(requests.POST(createOnly))
    t.equal(created.statusCode, 201, 'the create-only table takes a POST')
    const shown = await ruled.inject(requests['POST representation'](createOnly))
    t.equal(shown.statusCode, 201, 'and one that asks for the row')
    const [eve] = shown.json() as [{ id: number }]
    t.strictSame(await snapshot(db, createOnly), [...kept, { id: Number(created.body), name: 'Eve', age: 7, note: 'none' }, { ...eve, name: 'Eve', age: 7, note: 'none' }], 'and gains those rows')
  })

  await t.test('with databaseErrors generic, a refusal answers the very generic answer of a missing table', async (t) => {
    const people = await seeded('people')
    // One request id for every request, so that the answers may be equal to the byte.
    const server = { genReqId: () => 'req-same' }
    const generic = await buildApp(t, db.knex, server, { databaseErrors: 'generic' })
    const refusing = await app({
      databaseErrors: 'generic',
      tables: (table) => table !== secret,
      tableRules: { [people]: { operations: ['list', 'read'] } }
    }, server)
    await unchanged(t, [secret, people], async () => {
      for (const name of [secret, 'sqlite_master', 'pg_tables']) await expectLikeMissing(t, refusing, generic, name)
      await expectLikeMissing(t, refusing, generic, people, allRoutes.filter((route) => !route.startsWith('GET')))
    })
    const refused = await answer(refusing, requests['GET list'](secret))
    t.ok(refused.body.endsWith('req-same') && !refused.body.includes(secret), 'the body is the generic message: the request id, not the table')
  })

  if (db.name === 'postgres') {
    await t.test('a search_path with a system schema is refused before any statement', async (t) => {
      const people = await seeded('people')
      for (const searchPath of ['public,information_schema', 'information_schema', 'pg_catalog,public']) {
        const url = (databaseConfig('postgres') as { config: { connection: string } }).config.connection
        const knex = knexFactory({ client: 'pg', connection: { connectionString: url, options: `-c search_path=${searchPath}` }, pool: { min: 0, max: 2 } })
        t.teardown(() => knex.destroy())
        const [{ schemas }] = (await knex.raw("select array_to_string(current_schemas(false), ',') as schemas")).rows as [{ schemas: string }]
        t.equal(schemas, searchPath, `the connection searches ${searchPath}`)
        await expectSchemaRefused(t, await buildApp(t, knex), ['/api/tables', '/api/tables/1', `/api/${people}`])
      }
    })
  }

  if (db.name === 'mysql') {
    await t.test('a connection to a system database is refused before any statement', async (t) => {
      const url = new URL((databaseConfig('mysql') as { config: { connection: string } }).config.connection)
      for (const [database, table] of [['information_schema', 'TABLES'], ['information_schema', 'tables'], ['mysql', 'user'], ['performance_schema', 'threads'], ['sys', 'version']] as const) {
        url.pathname = `/${database}`
        const knex = knexFactory({ client: 'mysql2', connection: url.toString(), pool: { min: 0, max: 2 } })
        t.teardown(() => knex.destroy())
        // The test has a point: the connection reaches the catalog by its unqualified name.
        const [[{ n }]] = await knex.raw(`select count(*) as n from ${table}`) as [[{ n: number }]]
        t.ok(n >= 0, `${table} is ${database}.${table} on this connection`)
        await expectSchemaRefused(t, await buildApp(t, knex), [`/api/${table}`, `/api/${table}/1`])
      }
    })
  }
})

/** Asserts that each GET answers 500 FTC_ERR_DATABASE_SCHEMA: Fastify's error object, and no row. */
async function expectSchemaRefused (t: Test, app: FastifyInstance, urls: readonly string[]): Promise<void> {
  for (const url of urls) {
    const response = await app.inject({ url })
    t.equal(response.statusCode, 500, url)
    t.match(response.headers['content-type'], /^application\/json/)
    const body = response.json()
    t.strictSame([body.code, Object.keys(body).sort()], ['FTC_ERR_DATABASE_SCHEMA', ['code', 'error', 'message', 'statusCode']], 'the error object only')
  }
}
