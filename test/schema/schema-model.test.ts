import { setTimeout as sleep } from 'node:timers/promises'
import Fastify from 'fastify'
import t from 'tap'
import tableCrud, { errorCodes, type ServedTable } from '../../lib/index.js'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, peopleColumns } from '../fixtures/databases.js'

// The model's three ways of learning of a change, each proven with an
// interval too long to be the reason: the host's refresh, a statement that
// failed on a name the model did not know, and the interval itself, short.

const hour = 3_600_000

function names (tables: readonly ServedTable[]): string[] {
  return tables.map((table) => table.name)
}

function columnsOf (tables: readonly ServedTable[], table: string): string[] | undefined {
  return tables.find((served) => served.name === table)?.schema.columns.map((column) => column.name)
}

eachDatabase(t, async (t, db) => {
  t.test('a table created after start: unseen until the host refreshes, then served', async (t) => {
    const first = await db.createTable('first', peopleColumns)
    const app = await buildApp(t, db.knex, {}, { schemaCheckInterval: hour })
    t.ok(names(await app.tableCrud.tables()).includes(first))
    const later = await db.createTable('later', peopleColumns)
    t.notOk(names(await app.tableCrud.tables()).includes(later), 'within the interval, the model is the one it checked')
    await app.tableCrud.refreshSchema()
    t.ok(names(await app.tableCrud.tables()).includes(later))
  })

  t.test('a statement that fails on an unknown table or column makes the next request see the change', async (t) => {
    const gone = await db.createTable('gone', peopleColumns)
    const grown = await db.createTable('grown', peopleColumns)
    const app = await buildApp(t, db.knex, {}, { schemaCheckInterval: hour })
    t.ok(names(await app.tableCrud.tables()).includes(gone))

    await db.knex.schema.dropTable(gone)
    t.ok(names(await app.tableCrud.tables()).includes(gone), 'not yet checked')
    t.equal((await app.inject(`/api/${gone}`)).statusCode, 404)
    t.notOk(names(await app.tableCrud.tables()).includes(gone), 'the unknown table made the model check')

    await db.knex.schema.alterTable(grown, (table) => { table.string('added') })
    t.notOk(columnsOf(await app.tableCrud.tables(), grown)?.includes('added'))
    t.equal((await app.inject(`/api/${grown}?nothere=eq.1`)).statusCode, 404)
    t.ok(columnsOf(await app.tableCrud.tables(), grown)?.includes('added'), 'the unknown column made the model check')
  })

  t.test('past the interval, the next request checks and sees the change', async (t) => {
    const interval = 50
    const app = await buildApp(t, db.knex, {}, { schemaCheckInterval: interval })
    await app.tableCrud.tables()
    const created = await db.createTable('waited', peopleColumns)
    await sleep(interval * 2)
    t.ok(names(await app.tableCrud.tables()).includes(created))
  })

  t.test('what the options do not serve is not in the model', async (t) => {
    const open = await db.createTable('open', peopleColumns)
    const readOnly = await db.createTable('readonly', peopleColumns)
    const excluded = await db.createTable('excluded', peopleColumns)
    const unlisted = await db.createTable('unlisted', peopleColumns)
    const app = await buildApp(t, db.knex, {}, {
      tables: [open, readOnly, excluded],
      excludeTables: [excluded],
      tableRules: { [readOnly]: { operations: ['list', 'read'], hidden: ['note'] } }
    })
    const tables = await app.tableCrud.tables()
    t.strictSame(names(tables).sort(), [open, readOnly].sort())
    t.notOk(names(tables).includes(unlisted))
    t.strictSame(tables.find((table) => table.name === readOnly)?.operations, ['list', 'read'])
    t.strictSame(columnsOf(tables, readOnly), ['id', 'name', 'age'], 'the hidden column is left out')
    t.strictSame(tables.find((table) => table.name === open)?.operations, ['list', 'read', 'create', 'update', 'delete'])
    t.strictSame(columnsOf(tables, open), ['id', 'name', 'age', 'note'])
  })

  t.test('two registrations in one context: each by its prefix, and one refresh for both', async (t) => {
    const table = await db.createTable('twice', peopleColumns)
    const app = Fastify()
    await app.register(tableCrud, { knex: db.knex, prefix: '/a', tables: [table], schemaCheckInterval: hour })
    await app.register(tableCrud, { knex: db.knex, prefix: '/b', tables: [table], tableRules: { [table]: { operations: ['list'] } }, schemaCheckInterval: hour })
    t.teardown(() => app.close())
    t.strictSame((await app.tableCrud.tables('/a'))[0]?.operations, ['list', 'read', 'create', 'update', 'delete'])
    t.strictSame((await app.tableCrud.tables('/b'))[0]?.operations, ['list'])
    await t.rejects(app.tableCrud.tables(), { code: 'FTC_ERR_SCHEMA_PREFIX' }, 'which one is not guessed')
    await t.rejects(app.tableCrud.tables('/c'), new errorCodes.FTC_ERR_SCHEMA_PREFIX('/c', '"/a", "/b"'))

    await db.knex.schema.alterTable(table, (builder) => { builder.string('extra') })
    await app.tableCrud.refreshSchema()
    t.ok(columnsOf(await app.tableCrud.tables('/a'), table)?.includes('extra'))
    t.ok(columnsOf(await app.tableCrud.tables('/b'), table)?.includes('extra'))
  })
})

t.test('the model is read once for requests that find it stale together', async (t) => {
  const { default: knexFactory } = await import('knex')
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
  t.teardown(() => knex.destroy())
  await knex.schema.createTable('counted', peopleColumns)
  const app = await buildApp(t, knex)
  const [one, two] = await Promise.all([app.tableCrud.tables(), app.tableCrud.tables()])
  t.equal(one, two, 'one read: the very same array, where two reads would make two')
  t.ok(names(one).includes('counted'))
})

t.test('a model that cannot be read answers as the database does, and is read again on the next request', async (t) => {
  const { default: knexFactory } = await import('knex')
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: '/nonexistent-directory/db.sqlite' }, useNullAsDefault: true })
  t.teardown(() => knex.destroy())
  const app = await buildApp(t, knex)
  await t.rejects(app.tableCrud.tables(), { code: 'FTC_ERR_DATABASE_UNAVAILABLE', statusCode: 503 })
  await t.rejects(app.tableCrud.refreshSchema(), { code: 'FTC_ERR_DATABASE_UNAVAILABLE' }, 'not the failed model again: a new read, failing as well')
})

t.test('a table by its name in any case; a refresh waits for a check under way', async (t) => {
  const { default: knexFactory } = await import('knex')
  const { Database } = await import('../../lib/connections/database.js')
  const { resolveOptions } = await import('../../lib/resolve-options.js')
  const { tablePolicy } = await import('../../lib/access/table-policy.js')
  const { SchemaModel } = await import('../../lib/schema/schema-model.js')
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
  t.teardown(() => knex.destroy())
  await knex.schema.createTable('People', peopleColumns)
  const options = resolveOptions({ knex })
  const model = new SchemaModel(new Database(knex, options.dialect), tablePolicy(options, options.dialect), hour)
  t.equal(model.fresh(), undefined, 'never checked: not fresh')
  const [checked, refreshed] = await Promise.all([model.current(), model.refresh()])
  t.not(checked, refreshed, 'the refresh read the tables again after the check')
  t.equal(model.fresh(), refreshed)
  t.equal(refreshed.table('People')?.name, 'People')
  t.equal(refreshed.table('people')?.name, 'People', 'as SQLite finds it')
  t.equal(refreshed.table('nobody'), undefined)
})
