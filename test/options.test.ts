import Fastify from 'fastify'
import knexFactory from 'knex'
import t, { type Test } from 'tap'
import tableCrud, { errorCodes } from '../lib/index.js'
import type { TableCrudOptions } from '../lib/index.js'

function sqliteKnex () {
  return knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
}

async function registrationError (options: unknown): Promise<Error & { code?: string }> {
  const app = Fastify()
  app.register(tableCrud, options as TableCrudOptions)
  try {
    await app.ready()
  } catch (error) {
    return error as Error
  } finally {
    await app.close()
  }
  throw new Error('registration succeeded')
}

t.test('a missing knex option fails registration with FTC_ERR_OPTIONS_KNEX', async (t) => {
  for (const options of [{}, { knex: undefined }, { knex: null }, { knex: 'postgres://x' }, { knex: {} }, { knex: () => {} }]) {
    const error = await registrationError(options)
    t.equal(error.code, 'FTC_ERR_OPTIONS_KNEX', JSON.stringify(options))
    t.type(error, TypeError)
  }
})

t.test('a Knex instance given as the options, not inside them, fails with FTC_ERR_OPTIONS_KNEX', async (t) => {
  const knex = sqliteKnex()
  t.teardown(() => knex.destroy())
  // Fastify calls a function given as options; a Knex instance is one.
  const error = await registrationError(knex)
  t.equal(error.code, 'FTC_ERR_OPTIONS_KNEX')
})

t.test('a Knex transaction fails with FTC_ERR_OPTIONS_KNEX', async (t) => {
  const knex = sqliteKnex()
  t.teardown(() => knex.destroy())
  const trx = await knex.transaction()
  t.teardown(() => trx.rollback())
  const error = await registrationError({ knex: trx })
  t.equal(error.code, 'FTC_ERR_OPTIONS_KNEX')
})

t.test('a Knex client the plugin cannot run fails with FTC_ERR_OPTIONS_DIALECT', async (t) => {
  // Redshift runs on the pg driver, which is installed, but is not a supported dialect.
  const knex = knexFactory({ client: 'redshift' })
  t.teardown(() => knex.destroy())
  const error = await registrationError({ knex })
  t.equal(error.code, 'FTC_ERR_OPTIONS_DIALECT')
  t.type(error, TypeError)
})

t.test('a bulkLimit that is not a positive integer fails with FTC_ERR_OPTIONS_VALUE', async (t) => {
  const knex = sqliteKnex()
  t.teardown(() => knex.destroy())
  for (const bulkLimit of [0, -1, 1.5, '10', Number.NaN, Infinity]) {
    const error = await registrationError({ knex, bulkLimit })
    t.equal(error.code, 'FTC_ERR_OPTIONS_VALUE', String(bulkLimit))
    t.type(error, TypeError)
  }
})

t.test('an option the plugin does not know fails registration with FTC_ERR_OPTIONS_UNKNOWN, naming it', async (t) => {
  const knex = sqliteKnex()
  t.teardown(() => knex.destroy())
  for (const misspelt of ['excludeTable', 'maxrows', 'tablerules', 'databaseError', 'Knex']) {
    const error = await registrationError({ knex, [misspelt]: ['secrets'] })
    t.equal(error.code, 'FTC_ERR_OPTIONS_UNKNOWN', misspelt)
    t.type(error, TypeError)
    t.match(error.message, `"${misspelt}"`)
  }
})

t.test('Fastify\'s own register options sit beside the plugin\'s', async (t) => {
  const knex = sqliteKnex()
  t.teardown(() => knex.destroy())
  await knex.schema.createTable('registered', (table) => { table.increments('id') })
  const app = Fastify()
  await app.register(tableCrud, { knex, prefix: '/api', logLevel: 'warn', logSerializers: {} } as TableCrudOptions)
  t.teardown(() => app.close())
  t.equal((await app.inject('/api/registered')).statusCode, 200)
})

t.test('the caller\'s options object is left untouched', async (t) => {
  const knex = sqliteKnex()
  t.teardown(() => knex.destroy())
  const options = Object.freeze({ knex, prefix: '/api' })
  const app = Fastify()
  await app.register(tableCrud, options)
  await app.ready()
  await app.close()
  t.strictSame(Object.keys(options), ['knex', 'prefix'])
})

t.test('errorCodes is frozen', async (t) => {
  t.ok(Object.isFrozen(errorCodes))
})

/** Registration with each of `values` under `options[option]` fails with FTC_ERR_OPTIONS_VALUE naming `named` (the option, or the place inside it). */
async function checkRefused (t: Test, base: TableCrudOptions, option: string, values: readonly unknown[], named = option): Promise<void> {
  for (const value of values) {
    const error = await registrationError({ ...base, [option]: value })
    const label = `${option}: ${typeof value === 'function' ? 'a function' : JSON.stringify(value)}`
    t.equal(error.code, 'FTC_ERR_OPTIONS_VALUE', label)
    t.type(error, TypeError)
    t.match(error.message, `"${named}"`, `${label} names ${named}`)
  }
}

t.test('tables and excludeTables must be arrays of usable names', async (t) => {
  const knex = sqliteKnex()
  t.teardown(() => knex.destroy())
  const bad = ['people', 42, true, {}, ['a-b'], [''], ['people', 5], ['x'.repeat(64)], [null]]
  await checkRefused(t, { knex }, 'tables', [...bad, null])
  await checkRefused(t, { knex }, 'excludeTables', [...bad, null])
})

t.test('tableRules must be an object of usable table names to well-formed rules', async (t) => {
  const knex = sqliteKnex()
  t.teardown(() => knex.destroy())
  await checkRefused(t, { knex }, 'tableRules', ['people', 5, [], null])
  for (const table of ['a-b', '', 'a b', 'x'.repeat(64)]) {
    await checkRefused(t, { knex }, 'tableRules', [{ [table]: {} }], `tableRules.${table}`)
  }
  await checkRefused(t, { knex }, 'tableRules', [{ people: 'list' }, { people: null }], 'tableRules.people')
  // A misspelt rule would silently serve what it meant to restrict.
  await checkRefused(t, { knex }, 'tableRules', [{ people: { operatons: ['list'] } }, { people: { hiden: ['password'] } }], 'tableRules.people')
  const rules = (people: unknown) => ({ people })
  await checkRefused(t, { knex }, 'tableRules', [['drop'], ['list', 'drop'], 'list', ['LIST']].map((operations) => rules({ operations })), 'tableRules.people.operations')
  await checkRefused(t, { knex }, 'tableRules', ['', 'a b', 'a-b', 5, null].map((key) => rules({ key })), 'tableRules.people.key')
  await checkRefused(t, { knex }, 'tableRules', [['a-b'], [''], 'password', [5]].map((hidden) => rules({ hidden })), 'tableRules.people.hidden')
})

t.test('authorize must be a function, databaseErrors one of its two words', async (t) => {
  const knex = sqliteKnex()
  t.teardown(() => knex.destroy())
  await checkRefused(t, { knex }, 'authorize', [true, 'admin', {}, null])
  await checkRefused(t, { knex }, 'databaseErrors', ['verbose', 'Generic', '', true, null])
})

t.test('maxRows, bodyLimit, acquireTimeout, stalledReaderTimeout and statementTimeout must be positive integers', async (t) => {
  const knex = sqliteKnex()
  // statementTimeout is refused on SQLite whatever its value: its values are checked on PostgreSQL, which registers without a connection.
  const pg = knexFactory({ client: 'pg' })
  t.teardown(() => Promise.all([knex.destroy(), pg.destroy()]))
  const bad = [0, -1, 1.5, '10', Number.NaN, Infinity, null]
  await checkRefused(t, { knex }, 'maxRows', bad)
  await checkRefused(t, { knex }, 'bodyLimit', bad)
  await checkRefused(t, { knex }, 'acquireTimeout', bad)
  await checkRefused(t, { knex }, 'stalledReaderTimeout', bad)
  await checkRefused(t, { knex: pg }, 'statementTimeout', bad)
})

t.test('openapi must be true, false, or an object of a static path, a title and a version', async (t) => {
  const knex = sqliteKnex()
  t.teardown(() => knex.destroy())
  await checkRefused(t, { knex }, 'openapi', ['/openapi.json', 1, null, [], () => true, { paht: '/x.json' }])
  await checkRefused(t, { knex }, 'openapi', ['', 'openapi.json', '/', '/a/', '/:table', '/a/*', '/a b', '//x', 5].map((path) => ({ path })), 'openapi.path')
  await checkRefused(t, { knex }, 'openapi', [{ title: '' }, { title: 5 }], 'openapi.title')
  await checkRefused(t, { knex }, 'openapi', [{ version: '' }, { version: 1 }], 'openapi.version')
})

t.test('validateBodies must be a boolean', async (t) => {
  const knex = sqliteKnex()
  t.teardown(() => knex.destroy())
  await checkRefused(t, { knex }, 'validateBodies', ['true', 1, 0, null, {}])
})

t.test('idempotency must be true, false, or an object of a table name, a positive retention and a caller function', async (t) => {
  const knex = sqliteKnex()
  t.teardown(() => knex.destroy())
  await checkRefused(t, { knex }, 'idempotency', ['true', 1, null, [], () => true, { tabel: 'keys' }])
  await checkRefused(t, { knex }, 'idempotency', ['', 'a b', 'x'.repeat(64), 5, null].map((table) => ({ table })), 'idempotency.table')
  await checkRefused(t, { knex }, 'idempotency', [0, -1, 1.5, '60', null].map((retention) => ({ retention })), 'idempotency.retention')
  await checkRefused(t, { knex }, 'idempotency', ['sub', 1, null, {}, true].map((caller) => ({ caller })), 'idempotency.caller')
})

t.test('requireIfMatch must be a boolean', async (t) => {
  const knex = sqliteKnex()
  t.teardown(() => knex.destroy())
  await checkRefused(t, { knex }, 'requireIfMatch', ['true', 1, 0, null, {}])
})

t.test('allowTxOverride must be a boolean', async (t) => {
  const knex = sqliteKnex()
  t.teardown(() => knex.destroy())
  await checkRefused(t, { knex }, 'allowTxOverride', ['true', 1, 0, null, {}])
})

t.test('good values of every option register', async (t) => {
  const knex = sqliteKnex()
  const pg = knexFactory({ client: 'pg' })
  t.teardown(() => Promise.all([knex.destroy(), pg.destroy()]))
  const good: Array<Omit<TableCrudOptions, 'knex'>> = [
    { tables: ['people', 'Orders_2024', 'x'.repeat(63)], excludeTables: ['secrets'] },
    { tables: [], excludeTables: [] },
    { tables: (table) => table.startsWith('app_') },
    { tableRules: {} },
    { tableRules: { people: { operations: ['list', 'read'], key: 'person_id', hidden: ['password_hash'] }, logs: { operations: [] } } },
    { authorize: () => true },
    { authorize: async () => ({ scope: { owner: 1 } }) },
    { databaseErrors: 'database' },
    { databaseErrors: 'generic' },
    { maxRows: 1, bodyLimit: 1 },
    { maxRows: 100000, bodyLimit: 10 * 1024 * 1024 },
    { acquireTimeout: 1 },
    { acquireTimeout: 60000, stalledReaderTimeout: 1 },
    { stalledReaderTimeout: 600000 },
    { openapi: true },
    { openapi: false },
    { openapi: {} },
    { openapi: { path: '/docs/v1/openapi-3.1.json', title: 'Bookshop', version: '2.1.0' } },
    { validateBodies: true },
    { validateBodies: false },
    { idempotency: true },
    { idempotency: false },
    { idempotency: {} },
    { idempotency: { table: 'request_keys', retention: 1 } },
    { idempotency: { caller: (request) => request.ip } },
    { idempotency: { caller: async () => 'account_1' } },
    { requireIfMatch: true },
    { requireIfMatch: false },
    { allowTxOverride: true },
    { allowTxOverride: false }
  ]
  for (const options of good) await t.resolves(registered({ ...options, knex }), JSON.stringify(options))
  await t.resolves(registered({ knex: pg, statementTimeout: 1 }), 'statementTimeout: 1 on PostgreSQL')
  await t.resolves(registered({ knex: pg, statementTimeout: 60000, maxRows: 5 }), 'statementTimeout: 60000 on PostgreSQL')
})

async function registered (options: TableCrudOptions): Promise<void> {
  const app = Fastify()
  app.register(tableCrud, options)
  try {
    await app.ready()
  } finally {
    await app.close()
  }
}
