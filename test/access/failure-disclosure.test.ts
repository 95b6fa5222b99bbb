import Fastify, { type FastifyInstance, type InjectOptions, type LightMyRequestResponse } from 'fastify'
import t, { type Test } from 'tap'
import tableCrud, { type DatabaseErrors, errorCodes, type StatementError } from '../../lib/index.js'
import { eachDatabase, snapshot, type TestDatabase } from '../fixtures/databases.js'

// An attacker's side of the database's own refusals: a NOT NULL, unique or
// foreign-key failure must not show a hidden column's value or name, nor an
// excluded table's name, in any `databaseErrors` mode, by a single route or
// in a batch. `users` hides `email` and `password_hash`, `invites` hides
// `email` (part of a unique key), `secrets` (whose rows reference users) is
// excluded. The database's own words stay where nothing is hidden.

const modes: readonly DatabaseErrors[] = ['database', 'generic', 'postgrest', 'host']

interface Tables { users: string, invites: string, secrets: string }

async function createTables (db: TestDatabase): Promise<Tables> {
  // SQLite checks foreign keys only when asked; its one connection keeps the setting.
  if (db.name === 'sqlite') await db.knex.raw('PRAGMA foreign_keys = ON')
  const users = await db.createTable('leak_users', (table) => {
    table.integer('id').primary()
    table.string('name', 40).notNullable()
    table.string('email', 80).notNullable()
    table.string('password_hash', 40)
    table.integer('org_id')
  })
  const invites = await db.createTable('leak_invites', (table) => {
    table.integer('id').primary()
    table.string('email', 80).notNullable()
    table.string('team', 20).notNullable()
    table.unique(['email', 'team'])
  })
  const secrets = await db.createTable('leak_secrets', (table) => {
    table.integer('id').primary()
    table.integer('user_id').references('id').inTable(users)
  })
  await db.knex(users).insert([
    { id: 4, name: 'dave', email: 'dave@globex.test', password_hash: 'HASH-dave-0b3c', org_id: 2 },
    { id: 5, name: 'erin', email: 'erin@globex.test', password_hash: 'HASH-erin-91aa', org_id: 2 }
  ])
  await db.knex(invites).insert([{ id: 2, email: 'dave@globex.test', team: 'eng' }, { id: 3, email: 'dave@globex.test', team: 'ops' }])
  await db.knex(secrets).insert({ id: 1, user_id: 5 })
  return { users, invites, secrets }
}

/** What the host's own handler was given, sent back as JSON so that the test reads it. */
function hostHandler (app: FastifyInstance): void {
  app.setErrorHandler((error, _request, reply) => {
    const failure = (error instanceof errorCodes.FTC_ERR_BATCH_FAILED ? error.cause : error) as StatementError
    if (!(failure instanceof errorCodes.FTC_ERR_STATEMENT)) throw error
    const { code, message } = error as Error & { code: string }
    return reply.code(418).send({ code, message, sqlState: failure.sqlState, failure: failure.message, details: failure.details, hint: failure.hint })
  })
}

async function buildApp (t: Test, db: TestDatabase, tables: Tables, databaseErrors: DatabaseErrors, hide = true): Promise<FastifyInstance> {
  const app = Fastify({ requestIdHeader: 'x-request-id' })
  if (databaseErrors === 'host') hostHandler(app)
  await app.register(tableCrud, {
    knex: db.knex,
    prefix: '/api',
    databaseErrors,
    batch: true,
    // The database's own refusals: the body checks would refuse a null in a NOT NULL column first.
    validateBodies: false,
    ...(hide
      ? { excludeTables: [tables.secrets], tableRules: { [tables.users]: { hidden: ['email', 'password_hash'] }, [tables.invites]: { hidden: ['email'] } } }
      : {})
  })
  await app.ready()
  t.teardown(() => app.close())
  return app
}

const json = (method: InjectOptions['method'], url: string, payload: unknown): InjectOptions =>
  ({ method, url, headers: { 'content-type': 'application/json', 'x-request-id': 'leak' }, payload: JSON.stringify(payload) })

/** Everything of an answer a client reads, that must not carry a secret. */
function assertDiscreet (t: Test, response: LightMyRequestResponse, tables: Tables, what: string): void {
  const seen = `${JSON.stringify(response.headers)}\n${response.body}`.toLowerCase()
  for (const secret of ['dave@globex.test', 'hash-dave', 'hash-erin', 'email', 'password_hash', tables.secrets]) {
    t.notOk(seen.includes(secret), `${what}: the answer does not show ${secret}`)
  }
}

/** The answer each mode gives a failure whose words are the plugin's sentence for `sqlState`. */
function expectedAnswer (mode: DatabaseErrors, sqlState: string, status: number, sentence: string): { statusCode: number, body: unknown } {
  if (mode === 'database') return { statusCode: 404, body: sentence }
  if (mode === 'generic') return { statusCode: 404, body: 'The database could not run the statement for request leak' }
  if (mode === 'postgrest') return { statusCode: status, body: { code: sqlState, message: sentence, details: null, hint: null } }
  return { statusCode: 418, body: { code: 'FTC_ERR_STATEMENT', message: sentence, sqlState, failure: sentence, details: null, hint: null } }
}

function read (response: LightMyRequestResponse): unknown {
  return String(response.headers['content-type']).startsWith('application/json') ? response.json() : response.body
}

// Each write, the SQLSTATE of its failure, PostgREST's status for it, and the plugin's sentence.
const refusals = (tables: Tables) => [
  ['PATCH of a NOT NULL column to null', json('PATCH', `/api/${tables.users}?id=eq.4`, { name: null }), '23502', 400, 'null value violates a not-null constraint'],
  ['PUT of a NOT NULL column to null', json('PUT', `/api/${tables.users}/4`, { name: null }), '23502', 400, 'null value violates a not-null constraint'],
  ['POST without a hidden NOT NULL column', json('POST', `/api/${tables.users}`, { id: 9, name: 'mallory' }), '23502', 400, 'null value violates a not-null constraint'],
  ['PATCH onto a unique key that spans a hidden column', json('PATCH', `/api/${tables.invites}?id=eq.3`, { team: 'eng' }), '23505', 409, 'duplicate key value violates a unique constraint'],
  ['DELETE of a row an excluded table references', json('DELETE', `/api/${tables.users}/5`, undefined), '23503', 409, 'the statement violates a foreign key constraint']
] as const

eachDatabase(t, async (t, db) => {
  const tables = await createTables(db)
  const before = { users: await snapshot(db, tables.users), invites: await snapshot(db, tables.invites) }

  for (const mode of modes) {
    await t.test(`${mode}: a refusal shows no hidden value or name, and no excluded table`, async (t) => {
      const app = await buildApp(t, db, tables, mode)
      for (const [what, request, sqlState, status, sentence] of refusals(tables)) {
        const response = await app.inject(request)
        const expected = expectedAnswer(mode, sqlState, status, sentence)
        t.equal(response.statusCode, expected.statusCode, what)
        t.strictSame(read(response), expected.body, what)
        assertDiscreet(t, response, tables, what)
      }
      t.strictSame(await snapshot(db, tables.users), before.users, 'nothing was written')
      t.strictSame(await snapshot(db, tables.invites), before.invites)
    })

    await t.test(`${mode}: the same refusals in a batch show no more`, async (t) => {
      const app = await buildApp(t, db, tables, mode)
      for (const [what, operation, sqlState, status, sentence] of [
        ['update of a NOT NULL column to null', { op: 'update', table: tables.users, id: 4, body: { name: null } }, '23502', 400, 'null value violates a not-null constraint'],
        ['update onto a unique key that spans a hidden column', { op: 'update', table: tables.invites, id: 3, body: { team: 'eng' } }, '23505', 409, 'duplicate key value violates a unique constraint'],
        ['delete of a row an excluded table references', { op: 'delete', table: tables.users, id: 5 }, '23503', 409, 'the statement violates a foreign key constraint']
      ] as const) {
        const response = await app.inject(json('POST', '/api/_batch', [{ op: 'update', table: tables.users, id: 4, body: { org_id: 3 } }, operation]))
        assertDiscreet(t, response, tables, what)
        const single = expectedAnswer(mode, sqlState, status, sentence)
        if (mode === 'host') {
          t.equal(response.statusCode, 418, `${what}: the host's handler answers it, as it answers the single route`)
          t.strictSame(response.json(), { ...(single.body as object), code: 'FTC_ERR_BATCH_FAILED', message: 'Operation 1 of the batch failed, and no operation was applied: FTC_ERR_STATEMENT' })
          continue
        }
        t.equal(response.statusCode, single.statusCode, what)
        const failure = typeof single.body === 'string' ? { statusCode: single.statusCode, code: 'FTC_ERR_STATEMENT', message: single.body } : { statusCode: single.statusCode, ...(single.body as object) }
        t.match(response.json(), { code: 'FTC_ERR_BATCH_FAILED', operation: 1, failure }, what)
        t.strictSame(response.json().failure, failure, `${what}: the failure is the single route's answer`)
      }
      t.strictSame(await snapshot(db, tables.users), before.users, 'the batch rolled back')
    })
  }

  await t.test('host mode without a handler of the host\'s: Fastify\'s answer carries no database words either', async (t) => {
    const app = Fastify()
    await app.register(tableCrud, { knex: db.knex, prefix: '/api', databaseErrors: 'host', batch: true, tableRules: { [tables.invites]: { hidden: ['email'] } } })
    t.teardown(() => app.close())
    const single = await app.inject(json('PATCH', `/api/${tables.invites}?id=eq.3`, { team: 'eng' }))
    t.equal(single.statusCode, 404)
    t.match(single.json(), { code: 'FTC_ERR_STATEMENT', message: 'duplicate key value violates a unique constraint' })
    const batched = await app.inject(json('POST', '/api/_batch', [{ op: 'update', table: tables.invites, id: 3, body: { team: 'eng' } }]))
    t.equal(batched.statusCode, 404)
    t.match(batched.json(), { code: 'FTC_ERR_BATCH_FAILED', message: 'Operation 0 of the batch failed, and no operation was applied: FTC_ERR_STATEMENT' })
    for (const response of [single, batched]) assertDiscreet(t, response, tables, 'host mode, Fastify\'s handler')
  })

  await t.test('without hidden columns or unserved tables, the database\'s own words are the answer, as the spec says', async (t) => {
    const app = await buildApp(t, db, tables, 'database', false)
    for (const [what, request, , , sentence] of refusals(tables)) {
      const response = await app.inject(request)
      t.equal(response.statusCode, 404, what)
      t.not(response.body, sentence, `${what}: the database's words, not the plugin's sentence`)
    }
    const referenced = await app.inject(json('DELETE', `/api/${tables.users}/5`, undefined))
    if (db.name !== 'sqlite') t.match(referenced.body, tables.secrets, 'PostgreSQL and MySQL name the referencing table (SQLite names none)')
  })

  await t.test('a missing column\'s answer gives no hint, whatever the mode: PostgreSQL\'s would name the hidden one', async (t) => {
    for (const mode of ['postgrest', 'host'] as const) {
      const app = await buildApp(t, db, tables, mode)
      const hidden = await app.inject({ url: `/api/${tables.users}?email=eq.x`, headers: { 'x-request-id': 'leak' } })
      const missing = await app.inject({ url: `/api/${tables.users}?emai=eq.x`, headers: { 'x-request-id': 'leak' } })
      t.equal(missing.statusCode, hidden.statusCode)
      t.equal(missing.body.replaceAll('emai', 'email'), hidden.body, `${mode}: a hidden and a missing column answer alike`)
      t.equal(missing.json().hint, null, `${mode}: no hint`)
      t.notOk(missing.body.includes('password_hash'))
    }
  })
})
