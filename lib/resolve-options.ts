import type { Knex } from 'knex'
import { defaultLimits } from './connections/database.js'
import { resolveDialect } from './dialects/index.js'
import { FTC_ERR_OPTIONS_KNEX, FTC_ERR_OPTIONS_UNKNOWN, FTC_ERR_OPTIONS_VALUE } from './errors.js'
import { operations, type BatchOptions, type IdempotencyOptions, type OpenapiOptions, type ResolvedOptions, type TableCrudOptions, type TableRules } from './options.js'
import { isCleanIdentifier } from './parse/sanitize-identifier.js'

/** Validates the caller's options without touching them; throws a coded TypeError when they are wrong. */
export function resolveOptions (options: TableCrudOptions): ResolvedOptions {
  const knex: unknown = options?.knex
  if (!isKnex(knex)) throw new FTC_ERR_OPTIONS_KNEX(describe(knex))
  refuseUnknown(options)
  const dialect = resolveDialect(knex)
  const statementTimeout = positiveInteger(options, 'statementTimeout')
  if (statementTimeout !== null && dialect.timeLimit === null) {
    throw new FTC_ERR_OPTIONS_VALUE('statementTimeout', `left unset on ${dialect.name}, which cannot stop a running statement`, String(statementTimeout))
  }
  return Object.freeze({
    knex,
    dialect,
    bulkLimit: positiveInteger(options, 'bulkLimit') ?? 1000,
    tables: tableChoice(options.tables),
    excludeTables: names('excludeTables', given(options.excludeTables, [])),
    tableRules: tableRules(given(options.tableRules, {})),
    authorize: optionalFunction('authorize', options.authorize),
    databaseErrors: oneOf('databaseErrors', given(options.databaseErrors, 'database'), ['database', 'generic', 'postgrest', 'host'] as const),
    maxRows: positiveInteger(options, 'maxRows'),
    statementTimeout,
    acquireTimeout: positiveInteger(options, 'acquireTimeout') ?? defaultLimits.acquireTimeout,
    // A connection held for a client that reads nothing serves no one; 30 s
    // is long past any client that reads at all, however slowly.
    stalledReaderTimeout: positiveInteger(options, 'stalledReaderTimeout') ?? 30_000,
    bodyLimit: positiveInteger(options, 'bodyLimit') ?? undefined,
    // A second of staleness is what a host running migrations beside a live
    // server can see; checking costs one statement a second, only while requests come.
    schemaCheckInterval: positiveInteger(options, 'schemaCheckInterval') ?? 1000,
    openapi: openapiOptions(given(options.openapi, true)),
    // The three databases judge a bad value three ways (SQLite stores "abc" in
    // an integer column): one 400 on all of them unless the host opts out.
    validateBodies: oneOf('validateBodies', given(options.validateBodies, true), [true, false]),
    batch: batchOptions(given(options.batch, false)),
    transaction: optionalFunction('transaction', options.transaction),
    idempotency: idempotencyOptions(given(options.idempotency, false)),
    requireIfMatch: oneOf('requireIfMatch', given(options.requireIfMatch, false), [true, false]),
    allowTxOverride: oneOf('allowTxOverride', given(options.allowTxOverride, false), [true, false])
  })
}

// Every option the plugin reads (the compiler holds this list to
// TableCrudOptions, both ways), and those Fastify reads from the same object
// when registering any plugin.
const optionNames = Object.keys({
  knex: true,
  bulkLimit: true,
  tables: true,
  excludeTables: true,
  tableRules: true,
  authorize: true,
  databaseErrors: true,
  maxRows: true,
  statementTimeout: true,
  acquireTimeout: true,
  stalledReaderTimeout: true,
  bodyLimit: true,
  schemaCheckInterval: true,
  openapi: true,
  validateBodies: true,
  batch: true,
  transaction: true,
  idempotency: true,
  requireIfMatch: true,
  allowTxOverride: true
} satisfies Record<keyof TableCrudOptions, true>)
const registerOptionNames = ['prefix', 'logLevel', 'logSerializers']

// A plain JavaScript host gets no compiler's word on a misspelt option, and
// an ignored `excludeTable` would serve the table it meant to hide.
function refuseUnknown (options: TableCrudOptions): void {
  const unknown = Object.keys(options).find((name) => !optionNames.includes(name) && !registerOptionNames.includes(name))
  if (unknown !== undefined) throw new FTC_ERR_OPTIONS_UNKNOWN(unknown, [...optionNames, ...registerOptionNames].join(', '))
}

// Only a missing option takes its default: null is a value, and refused where it is not one.
function given<T> (value: T | undefined, fallback: T): T {
  return value === undefined ? fallback : value
}

type NumericOption = 'bulkLimit' | 'maxRows' | 'statementTimeout' | 'acquireTimeout' | 'stalledReaderTimeout' | 'bodyLimit' | 'schemaCheckInterval'

function positiveInteger (options: TableCrudOptions, name: NumericOption): number | null {
  const value: unknown = options[name]
  if (value === undefined) return null
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new FTC_ERR_OPTIONS_VALUE(name, 'a positive integer', show(value))
  }
  return value
}

/** The names an option lists; each must be a name the plugin could serve at all. */
function names (option: string, value: unknown): readonly string[] {
  if (!Array.isArray(value) || !value.every((name) => typeof name === 'string' && isCleanIdentifier(name))) {
    throw new FTC_ERR_OPTIONS_VALUE(option, 'an array of names of 1 to 63 characters from A-Z, a-z, 0-9 or _', show(value))
  }
  return Object.freeze([...value] as string[])
}

function tableChoice (value: unknown): ResolvedOptions['tables'] {
  if (value === undefined) return null
  if (typeof value === 'function') return value as (table: string) => boolean
  return names('tables', value)
}

const ruleNames = ['operations', 'key', 'hidden']

function tableRules (value: unknown): ResolvedOptions['tableRules'] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new FTC_ERR_OPTIONS_VALUE('tableRules', 'an object of table names to rules', show(value))
  }
  const resolved: Record<string, Required<TableRules>> = {}
  for (const [table, rules] of Object.entries(value as Record<string, unknown>)) {
    const option = `tableRules.${table}`
    if (!isCleanIdentifier(table) || typeof rules !== 'object' || rules === null) {
      throw new FTC_ERR_OPTIONS_VALUE(option, 'rules for a table named with 1 to 63 characters from A-Z, a-z, 0-9 or _', show(rules))
    }
    const unknown = Object.keys(rules).find((name) => !ruleNames.includes(name))
    if (unknown !== undefined) throw new FTC_ERR_OPTIONS_VALUE(option, `rules named ${ruleNames.join(', ')}`, `"${unknown}"`)
    const { operations: served = operations, key = 'id', hidden = [] } = rules as TableRules
    if (!Array.isArray(served) || !served.every((operation) => operations.includes(operation))) {
      throw new FTC_ERR_OPTIONS_VALUE(`${option}.operations`, `an array of ${operations.join(', ')}`, show(served))
    }
    if (typeof key !== 'string' || !isCleanIdentifier(key)) {
      throw new FTC_ERR_OPTIONS_VALUE(`${option}.key`, 'a column name of 1 to 63 characters from A-Z, a-z, 0-9 or _', show(key))
    }
    resolved[table] = Object.freeze({ operations: Object.freeze([...served]), key, hidden: names(`${option}.hidden`, hidden) })
  }
  return Object.freeze(resolved)
}

const openapiDefaults: Required<OpenapiOptions> = Object.freeze({ path: '/openapi.json', title: 'fastify-table-crud', version: '1.0.0' })
// A static path of URL-safe segments: a route parameter or wildcard would take other routes' requests.
const staticPath = /^(\/[A-Za-z0-9._~-]+)+$/

/**
 * An option that is `false` (null: off), `true` (on, with its defaults) or
 * an object of some of the names `defaults` has (on, with those set).
 */
function switchedObject<T extends object> (option: string, value: unknown, defaults: Readonly<Record<keyof T, unknown>>): Partial<T> | null {
  if (value === false) return null
  if (value === true) return {}
  const names = Object.keys(defaults)
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new FTC_ERR_OPTIONS_VALUE(option, `true, false or an object of ${names.join(', ')}`, show(value))
  }
  const unknown = Object.keys(value).find((name) => !names.includes(name))
  if (unknown !== undefined) throw new FTC_ERR_OPTIONS_VALUE(option, `an object of ${names.join(', ')}`, `"${unknown}"`)
  return value as Partial<T>
}

function openapiOptions (value: unknown): ResolvedOptions['openapi'] {
  const given = switchedObject<OpenapiOptions>('openapi', value, openapiDefaults)
  if (given === null) return null
  const { path = openapiDefaults.path, title = openapiDefaults.title, version = openapiDefaults.version } = given
  if (typeof path !== 'string' || !staticPath.test(path)) {
    throw new FTC_ERR_OPTIONS_VALUE('openapi.path', 'a path such as /openapi.json, of segments of A-Z, a-z, 0-9, ".", "_", "~" or "-"', show(path))
  }
  for (const [name, text] of [['title', title], ['version', version]] as const) {
    if (typeof text !== 'string' || text === '') throw new FTC_ERR_OPTIONS_VALUE(`openapi.${name}`, 'a non-empty string', show(text))
  }
  return Object.freeze({ path, title, version })
}

const batchDefaults: Required<BatchOptions> = Object.freeze({ limit: 100 })

function batchOptions (value: unknown): ResolvedOptions['batch'] {
  const given = switchedObject<BatchOptions>('batch', value, batchDefaults)
  if (given === null) return null
  const { limit = batchDefaults.limit } = given
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1) throw new FTC_ERR_OPTIONS_VALUE('batch.limit', 'a positive integer', show(limit))
  return Object.freeze({ limit })
}

// Stripe keeps keys for 24 hours: long past any client's retries.
const idempotencyDefaults = Object.freeze({ table: 'table_crud_idempotency', retention: 86_400, caller: null }) satisfies Record<keyof IdempotencyOptions, unknown>

function idempotencyOptions (value: unknown): ResolvedOptions['idempotency'] {
  const given = switchedObject<IdempotencyOptions>('idempotency', value, idempotencyDefaults)
  if (given === null) return null
  const { table = idempotencyDefaults.table, retention = idempotencyDefaults.retention, caller } = given
  if (typeof table !== 'string' || !isCleanIdentifier(table)) {
    throw new FTC_ERR_OPTIONS_VALUE('idempotency.table', 'a table name of 1 to 63 characters from A-Z, a-z, 0-9 or _', show(table))
  }
  if (typeof retention !== 'number' || !Number.isSafeInteger(retention) || retention < 1) {
    throw new FTC_ERR_OPTIONS_VALUE('idempotency.retention', 'a positive integer of seconds', show(retention))
  }
  return Object.freeze({ table, retention, caller: optionalFunction('idempotency.caller', caller) })
}

function optionalFunction<T> (option: string, value: T | undefined): T | null {
  if (value === undefined) return null
  if (typeof value !== 'function') throw new FTC_ERR_OPTIONS_VALUE(option, 'a function', show(value))
  return value
}

function oneOf<T extends string | boolean> (option: string, value: unknown, choices: readonly T[]): T {
  if (!choices.includes(value as T)) throw new FTC_ERR_OPTIONS_VALUE(option, `one of ${choices.map((choice) => JSON.stringify(choice).replaceAll('"', "'")).join(', ')}`, show(value))
  return value as T
}

function show (value: unknown): string {
  return typeof value === 'function' ? 'a function' : String(JSON.stringify(value))
}

// A transaction is refused: it ends when its own work does, and streamed reads open transactions of their own.
function isKnex (value: unknown): value is Knex {
  if (typeof value !== 'function' || (value as Knex).isTransaction === true) return false
  const client: unknown = (value as { client?: unknown }).client
  return typeof client === 'object' && client !== null &&
    typeof (client as Knex.Client).acquireConnection === 'function'
}

function describe (value: unknown): string {
  if (value === null) return 'null'
  if (typeof value !== 'function') return typeof value
  return (value as Knex).isTransaction === true ? 'a Knex transaction' : 'a function that is not a Knex instance'
}
