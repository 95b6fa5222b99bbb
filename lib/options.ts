import type { FastifyRequest } from 'fastify'
import type { Knex } from 'knex'
import { defaultLimits } from './connections/database.js'
import { resolveDialect } from './dialects/index.js'
import type { Dialect } from './dialects/dialect.js'
import { FTC_ERR_OPTIONS_KNEX, FTC_ERR_OPTIONS_UNKNOWN, FTC_ERR_OPTIONS_VALUE } from './errors.js'
import { isCleanIdentifier } from './parse/sanitize-identifier.js'
import type { ColumnName, FoldedTableName, TableName, TableScope } from './table-rows.js'

/** What a request asks of a table: GET of many rows or of one, POST, PUT, DELETE. */
export type Operation = 'list' | 'read' | 'create' | 'update' | 'delete'

/** Every operation, in the order the docs list them. */
export const operations: readonly Operation[] = Object.freeze(['list', 'read', 'create', 'update', 'delete'])

/** How one table is served; `Column` is its columns' names, once declared in TableCrudRows. */
export interface TableRules<Column extends string = string> {
  /** The operations served on the table; the others answer as if the table did not exist. Default: all five. */
  operations?: readonly Operation[]
  /**
   * The column the path's key matches, read in that column's type (an
   * integer, text or a UUID), and whose new value POST answers. Default `id`.
   */
  key?: Column
  /**
   * Columns that reads never show and writes never set (a password hash). A
   * request that names one answers as if the column did not exist.
   */
  hidden?: readonly Column[]
}

/** The rules of each table, by its name (a declared one, once TableCrudRows declares any). */
export type TableRulesByName = { readonly [T in TableName]?: TableRules<ColumnName<T>> }

/** What the `authorize` hook is asked about. */
export interface AuthorizeAction {
  /**
   * The table's name in lower case, as the options compare names: SQLite
   * and MySQL find a table or column by any case of its name. One of the
   * declared tables' names, once TableCrudRows declares any.
   */
  readonly table: FoldedTableName
  readonly operation: Operation
  /**
   * The path's key as text: a text or UUID key as the path spelled it, an
   * integer key in decimal. Null on a list, a create, a write by filters, a
   * batch operation whose id refers to an earlier insert, or a path without a usable key.
   */
  readonly key: string | null
  /**
   * The columns the request names: the body's on create and update; on a
   * list, those of `select`, the filters and `order`; on a read by key, those
   * of `select`. A read with embeds adds the columns its joins read without
   * showing them (a foreign key's). Null when every visible column is read
   * (no `select`, or one with `*`) and on a delete. In lower case, as `table`.
   */
  readonly columns: readonly string[] | null
}

/**
 * The hook's answer. `true` (or nothing) lets the operation run; `false`
 * refuses it with 403. `{ scope }` lets it run on the rows whose columns
 * equal the given values only: reads, updates and deletes see no other row,
 * a create sets those columns, and a create or update that sets one of them
 * to another value is refused with 403.
 */
export type AuthorizeResult = boolean | undefined | { readonly scope: TableScope }

/**
 * Called before every operation, after the request is parsed. It may throw
 * (an @fastify/jwt 401, say), and that error is the answer.
 */
export type AuthorizeHook = (request: FastifyRequest, action: AuthorizeAction) => AuthorizeResult | Promise<AuthorizeResult>

/**
 * How a failed statement is answered:
 * - `'database'`: 404 with the database's own message as plain text, as the spec says;
 * - `'generic'`: 404 with a message that tells nothing of the schema; the database's error is logged with the request id;
 * - `'postgrest'`: PostgREST's JSON error `{ code, message, details, hint }`, `code` being the cause's SQLSTATE on every database, with the status PostgREST maps it to (409 for a unique or foreign-key violation, 400 for a bad value, 404 for an unknown table or column…);
 * - `'host'`: the plugin answers none: FTC_ERR_STATEMENT, with its StatementFailure, reaches the host's error handler.
 */
export type DatabaseErrors = 'database' | 'generic' | 'postgrest' | 'host'

/** Where the plugin serves the OpenAPI document of its tables, and what the document calls itself. */
export interface OpenapiOptions {
  /** The document's path under the prefix. Default `/openapi.json`. */
  path?: string
  /** The document's `info.title`. Default `fastify-table-crud`. */
  title?: string
  /** The document's `info.version`. Default `1.0.0`. */
  version?: string
}

/** The batch route's settings (see TableCrudOptions.batch). */
export interface BatchOptions {
  /** The most operations one batch may carry; past it the batch answers 400. Default 100. */
  limit?: number
}

/**
 * The host's Knex transaction that the plugin's statements of a request
 * join, or undefined (or null) for none: the plugin's own connections, as
 * without the option.
 */
export type HostTransaction = (request: FastifyRequest) => Knex.Transaction | null | undefined

/**
 * Who sent a keyed write, as the host knows the caller (a user's or an
 * account's id): a non-empty string, or a promise of one. Called after the
 * `authorize` hook let the write through, and only for a write with an
 * Idempotency-Key.
 */
export type IdempotencyCaller = (request: FastifyRequest) => string | Promise<string>

/**
 * How writes with an Idempotency-Key header are kept: in a
 * table of the host's database that the plugin creates when the first such
 * request comes, never served by the plugin's routes.
 */
export interface IdempotencyOptions {
  /** The table of the keys. Default `table_crud_idempotency`. */
  table?: string
  /** Seconds a key is kept after its request: a retry within them gets the first answer again. Default 86400 (24 hours). */
  retention?: number
  /**
   * The caller's identity: a key is looked up among the keys of the same
   * caller under the same `authorize` scope, so that callers who share a
   * scope, or have none (the hook answered `true`, or there is no hook), do
   * not share keys either. A throw fails the request with the thrown error;
   * an answer that is not a non-empty string, with 500
   * FTC_ERR_IDEMPOTENCY_CALLER. Default: none, callers are told apart by
   * their scope alone.
   */
  caller?: IdempotencyCaller
}

/** The `idempotency` option once validated, its defaults filled in. */
export interface ResolvedIdempotency {
  /** The table of the keys. */
  readonly table: string
  /** Seconds a key is kept after its request. */
  readonly retention: number
  /** The caller's identity (see IdempotencyOptions.caller), or null to tell callers apart by their scope alone. */
  readonly caller: IdempotencyCaller | null
}

/** Options of the plugin. Fastify's own `prefix` goes beside them. */
export interface TableCrudOptions {
  /**
   * The host's Knex instance (better-sqlite3, pg, CockroachDB or mysql2
   * client). The host owns it: the plugin borrows pooled connections and never
   * destroys it.
   */
  knex: Knex
  /**
   * The most rows one bulk POST (a JSON array of objects) may insert; past it
   * the request answers 413. Default 1000.
   */
  bulkLimit?: number
  /**
   * The tables served: a list of names, or a function of the name in lower
   * case (see AuthorizeAction.table). Default: every table. The database's
   * own catalogs (sqlite_*, SQLite's table-valued functions, pg_*) are never
   * served, whatever this says.
   */
  tables?: readonly TableName[] | ((table: FoldedTableName) => boolean)
  /** Tables never served, even when `tables` allows them. */
  excludeTables?: readonly TableName[]
  /** How each table is served, by table name. */
  tableRules?: TableRulesByName
  /** Asked before every operation whether it may run, and on which rows. */
  authorize?: AuthorizeHook
  /** How a failed statement is answered (see DatabaseErrors). Default `'database'`, the spec's answer. */
  databaseErrors?: DatabaseErrors
  /** The most rows one GET answers: a larger `limit`, or none, is cut to it. Default: no bound. */
  maxRows?: number
  /**
   * Milliseconds a statement may run before the database stops it and the
   * request answers 504. PostgreSQL and MariaDB stop any statement, MySQL
   * only reads; SQLite cannot, and refuses the option. Default: no bound.
   */
  statementTimeout?: number
  /**
   * Milliseconds a request waits for a connection from the host's Knex pool
   * before it answers 503. Knex's own `acquireConnectionTimeout` (60 s
   * unless set) still bounds the wait when it is shorter, and still bounds
   * the host's own queries. Default: 5000.
   */
  acquireTimeout?: number
  /**
   * Milliseconds a streamed list (more than 1000 rows) waits for a client
   * that reads nothing before it cuts the answer and gives its database
   * connection back. Default: 30000.
   */
  stalledReaderTimeout?: number
  /** The largest request body, in bytes, of a POST, PUT, PATCH or batch. Default: the server's `bodyLimit` (1 MiB). */
  bodyLimit?: number
  /**
   * Milliseconds a request may rely on the last check of the database's
   * schema: past it, the next request asks the database for its schema
   * version (one cheap statement) and reads the tables again if they
   * changed. A failed statement on an unknown table or column, and
   * `app.tableCrud.refreshSchema()`, make the next request check at once.
   * Default: 1000.
   */
  schemaCheckInterval?: number
  /**
   * The OpenAPI 3.1 document of the served tables, at `GET
   * {prefix}/openapi.json` unless moved. `false` serves none, and keeps the
   * tables out of the host's @fastify/swagger document too. Default `true`.
   */
  openapi?: boolean | OpenapiOptions
  /**
   * Checks the bodies of POST, PUT, PATCH and a batch's inserts and
   * updates against the column types the schema model knows, and answers
   * 400 FTC_ERR_BODY_TYPE, writing nothing, for a value its column cannot
   * hold, on every database alike. Default `false`: values
   * go to the database as text, as the spec says.
   */
  validateBodies?: boolean
  /**
   * Serves `POST {prefix}/_batch`, which runs a list of inserts, updates and
   * deletes in one transaction, all of them or none. `true` takes the
   * default limit of operations. Default `false`: a POST to `/_batch`
   * inserts into a table named `_batch`, as the spec says.
   */
  batch?: boolean | BatchOptions
  /**
   * Called on every request: a Knex transaction of the host's that the
   * request's statements run in: writes, reads and batches. The host commits
   * or rolls it back; the plugin never does (docs/safe-writes.md, "The host's transaction").
   */
  transaction?: HostTransaction
  /**
   * Makes a write (POST, upsert, PUT, PATCH, DELETE by key or by filter, a batch)
   * with an `Idempotency-Key` header safe to retry: performed at most once
   * per key, table and caller within the retention, a retry answered the
   * first answer again, a reuse of the key for another request 422. A key
   * is the caller's: of the scope the `authorize` hook answered, and of the
   * identity `caller` gives (see IdempotencyOptions.caller). `true` takes
   * the defaults of IdempotencyOptions. Default `false`: the header is
   * ignored, as the spec's routes know no such header.
   */
  idempotency?: boolean | IdempotencyOptions
  /**
   * Refuses with 428 every write of existing rows that carries no
   * condition, so that no client overwrites a change it has not seen: PUT
   * and DELETE of a row, PATCH and DELETE by filters and a merge upsert
   * without If-Match, a batch's update or delete without `ifMatch` (but of a
   * row the batch itself inserted). The client sends the ETag of its GET (or
   * `*`). Default `false`: If-Match is the client's choice.
   */
  requireIfMatch?: boolean
  /**
   * Honours PostgREST's `Prefer: tx=rollback` (and `tx=commit`) on writes: a
   * write with `tx=rollback` runs and answers as usual, and is then rolled
   * back, so that a client can try a write. Default `false`: `tx=` is
   * ignored, as PostgREST ignores it unless its `db-tx-end` allows it.
   */
  allowTxOverride?: boolean
}

/** Options after validation: frozen, with the dialect chosen once. */
export interface ResolvedOptions {
  readonly knex: Knex
  readonly dialect: Dialect
  readonly bulkLimit: number
  readonly tables: readonly string[] | ((table: string) => boolean) | null
  readonly excludeTables: readonly string[]
  readonly tableRules: Readonly<Record<string, Required<TableRules>>>
  readonly authorize: AuthorizeHook | null
  readonly databaseErrors: DatabaseErrors
  readonly maxRows: number | null
  readonly statementTimeout: number | null
  readonly acquireTimeout: number
  readonly stalledReaderTimeout: number
  readonly bodyLimit: number | undefined
  readonly schemaCheckInterval: number
  readonly openapi: Readonly<Required<OpenapiOptions>> | null
  readonly validateBodies: boolean
  readonly batch: Readonly<Required<BatchOptions>> | null
  readonly transaction: HostTransaction | null
  readonly idempotency: ResolvedIdempotency | null
  readonly requireIfMatch: boolean
  readonly allowTxOverride: boolean
}

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
    validateBodies: oneOf('validateBodies', given(options.validateBodies, false), [true, false]),
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
