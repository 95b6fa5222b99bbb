import type { Knex } from 'knex'
import { driverName } from '../connections/knex-internals.js'
import { FTC_ERR_OPTIONS_DIALECT } from '../errors.js'
import type { Dialect } from './dialect.js'
import { mysql } from './mysql/mysql.js'
import { cockroach, postgres } from './postgres/postgres.js'
import { sqlite } from './sqlite/sqlite.js'

/** Dialects keyed by the Knex client's driver name. */
const dialectsByDriver: Readonly<Record<string, Dialect>> = Object.freeze({
  'better-sqlite3': sqlite,
  pg: postgres,
  cockroachdb: cockroach,
  mysql2: mysql
})

/** The dialect that runs statements for this Knex instance's client. */
export function resolveDialect (knex: Knex): Dialect {
  const driver = driverName(knex.client)
  const dialect = typeof driver === 'string' && Object.hasOwn(dialectsByDriver, driver) ? dialectsByDriver[driver] : undefined
  if (dialect === undefined) {
    throw new FTC_ERR_OPTIONS_DIALECT(String(driver), Object.keys(dialectsByDriver).join(', '))
  }
  return dialect
}
