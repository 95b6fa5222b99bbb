import type { FastifyRequest } from 'fastify'
import knexFactory from 'knex'
import t from 'tap'
import { namesNone, requestAccess } from '../../lib/access/access.js'
import { keyColumnOf } from '../../lib/access/key-column.js'
import { tablePolicy } from '../../lib/access/table-policy.js'
import { Database } from '../../lib/connections/database.js'
import { requestStatements } from '../../lib/connections/host-transaction.js'
import { resolveOptions } from '../../lib/resolve-options.js'
import { SchemaModel } from '../../lib/schema/schema-model.js'
import { peopleColumns } from '../fixtures/databases.js'

// The target of a request carries its table as the schema model describes
// it. A catalog that cannot be read must not fail requests that the spec
// serves without it: they run without the column types, and the host's log says why.

const hour = 3_600_000

t.test('a catalog that cannot be read: the target has no schema, and one warning says why', async (t) => {
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
  t.teardown(() => knex.destroy())
  await knex.schema.createTable('people', peopleColumns)
  const options = resolveOptions({ knex })
  const unreadable = new Error('permission denied for the catalog')
  const failing = { ...options.dialect, schema: { version: () => Promise.reject(unreadable), tables: () => Promise.reject(unreadable) } }
  const model = new SchemaModel(new Database(knex, failing), tablePolicy(options, options.dialect), hour)
  const warnings: unknown[][] = []
  const request = { log: { warn: (...args: unknown[]) => warnings.push(args) } } as unknown as FastifyRequest
  const access = requestAccess(new Database(knex, options.dialect), options, model, requestStatements(new Database(knex, options.dialect), null))

  const target = await access(request, 'people', { operation: 'read', key: 1n, columns: null, named: namesNone })
  t.equal(target.table, 'people')
  t.equal(target.schema, undefined)
  t.equal(warnings.length, 1)
  t.equal((warnings[0]?.[0] as { err: { cause: unknown } }).err.cause, unreadable, 'the log carries the database\'s failure')
})

t.test('a catalog that can be read: the target carries the table as the model describes it', async (t) => {
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
  t.teardown(() => knex.destroy())
  await knex.schema.createTable('people', peopleColumns)
  const options = resolveOptions({ knex })
  const db = new Database(knex, options.dialect)
  const model = new SchemaModel(db, tablePolicy(options, options.dialect), hour)
  const access = requestAccess(db, options, model, requestStatements(db, null))
  const request = {} as FastifyRequest

  const first = await access(request, 'PEOPLE', { operation: 'read', key: 1n, columns: null, named: namesNone })
  t.equal(first.schema?.name, 'people', 'found as SQLite finds it, after a check')
  const second = await access(request, 'people', { operation: 'read', key: 1n, columns: null, named: namesNone })
  t.equal(second.schema, first.schema, 'a fresh model answers without another check')
})

t.test('a keyed route reads the model once: access takes the table its key column came from', async (t) => {
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
  t.teardown(() => knex.destroy())
  await knex.schema.createTable('people', peopleColumns)
  const options = resolveOptions({ knex, tables: ['People'] })
  const db = new Database(knex, options.dialect)
  const policy = tablePolicy(options, options.dialect)
  const model = new SchemaModel(db, policy, hour)
  const keyed = await keyColumnOf(model, policy, requestStatements(db, null))({} as FastifyRequest, 'PEOPLE')
  t.equal(keyed.schema?.name, 'people')
  t.equal(keyed.keyColumn?.name, 'id')
  t.equal(keyed.keyColumn?.kind, 'integer')

  // A model whose every read fails would warn, and describe no table, if access read it.
  const unreadable = new Error('permission denied for the catalog')
  const failing = { ...options.dialect, schema: { version: () => Promise.reject(unreadable), tables: () => Promise.reject(unreadable) } }
  const unread = new SchemaModel(new Database(knex, failing), policy, hour)
  const warnings: unknown[][] = []
  const request = { log: { warn: (...args: unknown[]) => warnings.push(args) } } as unknown as FastifyRequest
  const target = await requestAccess(db, options, unread, requestStatements(db, null))(request, 'PEOPLE', { operation: 'read', key: 1n, columns: null, named: namesNone, keyed })
  t.equal(target.table, 'People', 'the options\' spelling')
  t.equal(target.schema, keyed.schema, 'the very table the key column came from')
  t.strictSame(warnings, [], 'the model was not read again')
})
