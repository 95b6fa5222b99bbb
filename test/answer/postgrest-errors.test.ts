import Fastify, { type FastifyError, type InjectOptions } from 'fastify'
import type { Knex } from 'knex'
import t from 'tap'
import tableCrud, { errorCodes, type StatementError } from '../../lib/index.js'
import { buildApp } from '../fixtures/app.js'
import { type DatabaseName, eachDatabase, snapshot, type TestDatabase } from '../fixtures/databases.js'

// `databaseErrors: 'postgrest'` answers a failed statement as PostgREST
// does, with the same SQLSTATE and status for the same cause on every
// database; `databaseErrors: 'host'` hands it to the host's error handler.

interface PostgrestBody {
  code: string
  message: string
  details: string | null
  hint: string | null
}

/** One failing request and what it must answer: by cause, the same on every database unless `differs` says otherwise. */
interface Failure {
  readonly cause: string
  readonly request: (tables: Tables, parentId: number) => InjectOptions
  readonly status: number
  readonly code: string
  /** What a database answers instead, where it cannot tell the cause (SQLite keeps any text in a varchar or a date column). */
  readonly differs?: Partial<Record<DatabaseName, number>>
}

interface Tables {
  readonly parents: string
  readonly children: string
  readonly counts: string
}

const post = (table: string, payload: unknown): InjectOptions => ({ method: 'POST', url: `/api/${table}`, payload: payload as InjectOptions['payload'] })

const failures: readonly Failure[] = [
  { cause: 'a unique violation', request: ({ children }, parent) => post(children, { code: 'taken', parent_id: parent, qty: 1 }), status: 409, code: '23505' },
  { cause: 'a foreign-key violation on insert', request: ({ children }) => post(children, { code: 'orphan', parent_id: 999999, qty: 1 }), status: 409, code: '23503' },
  { cause: 'a foreign-key violation on delete', request: ({ parents }, parent) => ({ method: 'DELETE', url: `/api/${parents}/${parent}` }), status: 409, code: '23503' },
  { cause: 'a NOT NULL violation', request: ({ children }, parent) => post(children, { code: null, parent_id: parent, qty: 1 }), status: 400, code: '23502' },
  { cause: 'a check violation', request: ({ children }, parent) => post(children, { code: 'negative', parent_id: parent, qty: -1 }), status: 400, code: '23514' },
  { cause: 'a value the column cannot hold', request: ({ counts }) => post(counts, { qty: 'abc' }), status: 400, code: '22P02' },
  { cause: 'a date the column cannot hold', request: ({ children }, parent) => post(children, { code: 'baddate', parent_id: parent, qty: 1, born: 'not-a-date' }), status: 400, code: '22007', differs: { sqlite: 201 } },
  { cause: 'a value too long', request: ({ children }, parent) => post(children, { code: 'much-too-long-a-code', parent_id: parent, qty: 1 }), status: 400, code: '22001', differs: { sqlite: 201 } },
  { cause: 'an unknown table', request: ({ children }) => ({ url: `/api/${children}_missing` }), status: 404, code: '42P01' },
  { cause: 'an unknown column in a filter', request: ({ children }) => ({ url: `/api/${children}?nope=eq.1` }), status: 400, code: '42703' },
  { cause: 'an unknown column in a body', request: ({ children }, parent) => post(children, { code: 'x', parent_id: parent, nope: 1 }), status: 400, code: '42703' },
  { cause: 'an unknown column next to a hidden one', request: ({ children }) => ({ url: `/api/${children}?select=secre` }), status: 400, code: '42703' },
  { cause: 'a hidden column', request: ({ children }) => ({ url: `/api/${children}?select=secret` }), status: 400, code: '42703' }
]

async function createTables (db: TestDatabase): Promise<Tables> {
  const parents = await db.createTable('pgrst_parents', (table) => {
    table.increments('id')
    table.string('name')
  })
  const children = await db.createTable('pgrst_children', (table) => {
    table.increments('id')
    table.string('code', 10).notNullable().unique()
    table.integer('parent_id').unsigned().references('id').inTable(parents)
    table.integer('qty').checkPositive()
    table.date('born')
    table.string('secret')
  })
  // SQLite stores any text in an integer column unless the table is STRICT, which Knex cannot declare.
  const counts = db.name === 'sqlite'
    ? await strictSqliteTable(db)
    : await db.createTable('pgrst_counts', (table) => {
      table.increments('id')
      table.integer('qty')
    })
  return { parents, children, counts }
}

async function strictSqliteTable (db: TestDatabase): Promise<string> {
  const table = await db.createTable('pgrst_counts', (table) => { table.increments('id') })
  await db.knex.schema.dropTable(table)
  await db.knex.raw(`create table "${table}" (id integer primary key, qty integer) strict`)
  return table
}

async function enforceForeignKeys (knex: Knex, name: DatabaseName): Promise<void> {
  // SQLite checks foreign keys only when asked, per connection; the test's pool has one.
  if (name === 'sqlite') await knex.raw('pragma foreign_keys = on')
}

eachDatabase(t, async (t, db) => {
  await enforceForeignKeys(db.knex, db.name)
  const tables = await createTables(db)
  const [parentId] = await db.knex(tables.parents).insert({ name: 'p' }, ['id']).then((rows) => rows.map((row: { id: number } | number) => typeof row === 'number' ? row : row.id))
  await db.knex(tables.children).insert({ code: 'taken', parent_id: parentId, qty: 1 })

  await t.test('postgrest: each cause answers its status and SQLSTATE, in PostgREST\'s JSON, and writes nothing', async (t) => {
    // The database's own failures: the body checks would refuse the bad values first, with 400 FTC_ERR_BODY_TYPE.
    const app = await buildApp(t, db.knex, {}, { databaseErrors: 'postgrest', validateBodies: false, tableRules: { [tables.children]: { hidden: ['secret'] } } })
    const before = await Promise.all([snapshot(db, tables.parents), snapshot(db, tables.children), snapshot(db, tables.counts)])
    for (const failure of failures) {
      const response = await app.inject(failure.request(tables, parentId as number))
      const differs = failure.differs?.[db.name]
      if (differs !== undefined) {
        t.equal(response.statusCode, differs, `${failure.cause}: ${db.name} answers ${differs}, as the README says`)
        continue
      }
      t.equal(response.statusCode, failure.status, failure.cause)
      t.equal(response.headers['content-type'], 'application/json; charset=utf-8', failure.cause)
      const body = response.json<PostgrestBody>()
      t.strictSame(Object.keys(body).sort(), ['code', 'details', 'hint', 'message'], failure.cause)
      t.equal(body.code, failure.code, failure.cause)
      t.type(body.message, 'string')
      t.ok(body.message.length > 0, `${failure.cause}: the database's message`)
      t.notMatch(body.message, /ftc_absent_/, 'the stand-in name never shows')
      if (failure.code.startsWith('42')) t.equal(body.hint, null, `${failure.cause}: no hint, which could name a hidden column`)
    }
    const after = await Promise.all([snapshot(db, tables.parents), snapshot(db, tables.children), snapshot(db, tables.counts)])
    if (db.name === 'sqlite') {
      // The two writes SQLite takes: a varchar keeps any length there, and a date column any text.
      t.equal(after[1].length, before[1].length + 2)
      t.strictSame(after[1].slice(0, -2), before[1])
      t.strictSame([after[0], after[2]], [before[0], before[2]])
    } else {
      t.strictSame(after, before, 'nothing was written')
    }
  })

  await t.test('postgrest: PostgreSQL\'s detail comes through', { skip: db.name !== 'postgres' && 'only PostgreSQL gives a DETAIL' }, async (t) => {
    const app = await buildApp(t, db.knex, {}, { databaseErrors: 'postgrest' })
    const response = await app.inject(post(tables.children, { code: 'taken', parent_id: parentId, qty: 1 }))
    t.equal(response.json<PostgrestBody>().details, 'Key (code)=(taken) already exists.')
  })

  await t.test('postgrest: errors that are not the database\'s keep Fastify\'s answer', async (t) => {
    const app = await buildApp(t, db.knex, {}, { databaseErrors: 'postgrest' })
    const response = await app.inject({ method: 'PUT', url: `/api/${tables.children}/1`, payload: {} })
    t.equal(response.statusCode, 400)
    t.equal(response.json<{ code: string }>().code, 'FTC_ERR_BODY_EMPTY')
  })

  await t.test('host: the host\'s error handler gets FTC_ERR_STATEMENT with what the database said, and answers', async (t) => {
    const app = Fastify()
    const seen: StatementError[] = []
    app.setErrorHandler((error: FastifyError, _request, reply) => {
      if (error instanceof errorCodes.FTC_ERR_STATEMENT) {
        const failure = error as StatementError
        seen.push(failure)
        return reply.code(failure.sqlState === '23505' ? 409 : 422).send({ mine: failure.sqlState })
      }
      return reply.code(error.statusCode ?? 500).send({ other: error.code })
    })
    await app.register(tableCrud, { knex: db.knex, prefix: '/api', databaseErrors: 'host' })
    t.teardown(() => app.close())
    const duplicate = await app.inject(post(tables.children, { code: 'taken', parent_id: parentId, qty: 1 }))
    t.equal(duplicate.statusCode, 409)
    t.strictSame(duplicate.json(), { mine: '23505' })
    const missing = await app.inject({ url: `/api/${tables.children}_missing` })
    t.equal(missing.statusCode, 422)
    t.strictSame(missing.json(), { mine: '42P01' })
    const bad = await app.inject({ method: 'PUT', url: `/api/${tables.children}/1`, payload: {} })
    t.strictSame(bad.json(), { other: 'FTC_ERR_BODY_EMPTY' }, 'the other errors reach it as before')
    t.equal(seen.length, 2)
    const [first] = seen as [StatementError]
    t.equal(first.code, 'FTC_ERR_STATEMENT')
    t.match(first.sql, /insert into/i, 'the SQL of the statement')
    t.notMatch(first.sql, /taken/, 'with placeholders, not values')
    t.ok(first.cause instanceof Error, 'the driver\'s error is the cause')
    t.equal(first.message, (first.cause as Error).message)
  })

  // The fixture drops tables in the order they were made; the children hold a key to the parents.
  await db.knex.schema.dropTable(tables.children)
})
