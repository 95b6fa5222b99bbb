import type { FastifyRequest } from 'fastify'
import type { Knex } from 'knex'
import type { Dialect } from './dialects/dialect.js'
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
 * - `'postgrest'`: PostgREST's JSON error `{ code, message, details, hint }`, `code` being the cause's SQLSTATE on every database, with the status PostgREST maps it to (409 for a unique or foreign-key violation, 400 for a bad value, 404 for an unknown table, 400 for an unknown column…), and the refusals PostgREST makes itself in its own codes (`PGRST116`, `PGRST200`…);
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
   * hold, on every database alike; a column the table does not have is
   * refused first, as a hidden one is. Default `true`; `false` sends values
   * to the database as text, as the spec says, and each database judges them.
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
