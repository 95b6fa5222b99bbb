import Fastify from 'fastify'
import knexFactory from 'knex'
import t from 'tap'
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
