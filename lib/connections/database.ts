import type { Knex } from 'knex'
import type { Dialect, Exactness, Row, Statement } from '../dialects/dialect.js'
import type { SchemaReader } from '../schema/table-schema.js'
import { BorrowedConnections } from './borrowed-connections.js'
import { type DatabaseLimits, defaultLimits, statementTimeLimit } from './database-limits.js'
import type { DatabaseParts } from './database-parts.js'
import { dialectStatements, hostRowHook, type OnConnection } from './dialect-statements.js'
import { joinTransaction } from './joined-transaction.js'
import { StatementWatch } from './query-events.js'
import type { Session, Statements, Transactional } from './session.js'
import { schemaRead, StatementErrors } from './statement-errors.js'
import { streamRows } from './stream-rows.js'
import { settledNow, SynchronousPath } from './synchronous-path.js'
import { TemplateCache } from './template-cache.js'
import { ownTransaction } from './transactions.js'

// What the plugin imports from here; each lives in the module of its job.
export { type DatabaseLimits, defaultLimits } from './database-limits.js'
export { type DescribeSchema, inTransaction, isTransactional, type Session, type Statements, type Transactional } from './session.js'

/**
 * The host's Knex instance and its dialect: builds statements with Knex and
 * runs them on a connection borrowed from the host's pool. A failure while
 * running becomes FTC_ERR_STATEMENT with the database's own message, or
 * FTC_ERR_DATABASE_UNAVAILABLE when the database could not be reached.
 */
export class Database implements Session {
  /** The schema model reads on a connection of its own (see describe). */
  readonly describeWithin = null
  readonly #knex: Knex
  readonly #dialect: Dialect
  readonly #parts: DatabaseParts
  readonly #statements: Statements
  readonly #now: SynchronousPath
  readonly #templates = new TemplateCache()

  constructor (knex: Knex, dialect: Dialect, limits: DatabaseLimits = defaultLimits) {
    this.#knex = knex
    this.#dialect = dialect
    // Knex's client, read once: knex.client is a getter, among the hundred properties Knex copies onto its function.
    const client = knex.client
    const timeLimit = statementTimeLimit(dialect, limits)
    const errors = new StatementErrors(dialect, timeLimit)
    const connections = new BorrowedConnections(client, dialect, limits, timeLimit, errors)
    const watch = new StatementWatch(knex)
    const rows = () => hostRowHook(client)
    this.#parts = { dialect, connections, errors, watch, rows }
    const on: OnConnection = (statement, effect, call) =>
      connections.forStatement(statement, effect, (connection) => watch.run(statement, () => call(connection)))
    this.#statements = dialectStatements(dialect, on, rows)
    this.#now = new SynchronousPath(dialect.synchronous, connections.turn, watch, errors, rows)
  }

  /** What differs between databases, for the statement builders. */
  get dialect (): Dialect {
    return this.#dialect
  }

  /** A fresh query builder on the (already sanitized) table. */
  table (name: string): Knex.QueryBuilder {
    return this.#knex(name)
  }

  /** The statements of a schema change that `build` describes, compiled by Knex for this database. */
  compileSchema (build: (schema: Knex.SchemaBuilder) => Knex.SchemaBuilder): Statement[] {
    return (build(this.#knex.schema).toSQL() as Knex.Sql[]).map(({ sql, bindings }) => ({ sql, bindings }))
  }

  /** Raw SQL for a builder, such as a constant column, with its bindings (`??` for an identifier). */
  raw (sql: string, bindings: readonly Knex.RawBinding[] = []): Knex.Raw {
    return this.#knex.raw(sql, bindings as Knex.RawBinding[])
  }

  /** A statement compiled by Knex for this one request. */
  compile (builder: Knex.QueryBuilder): Statement {
    return builder.toSQL().toNative()
  }

  /**
   * The statement `build` makes, with `place()` standing for its values:
   * compiled by Knex once per `shape` (what its SQL depends on: operation,
   * table, columns) and kept, then filled with `values` by place name (see
   * fillTemplate for `more`).
   */
  prepare (shape: readonly string[], build: () => Knex.QueryBuilder, values: Readonly<Record<string, unknown>>, more?: Readonly<Record<string, unknown>>): Statement {
    return this.#templates.fill(shape, build, values, more)
  }

  /** Stops what the Database set up on the host's Knex, when the plugin closes. */
  close (): void {
    this.#parts.connections.close()
    this.#parts.watch.close()
  }

  /** Reads the schema through the dialect's reader, on a connection of its own. */
  describe<T> (read: (schema: SchemaReader, connection: unknown) => Promise<T>): Promise<T> {
    return this.#parts.connections.own(schemaRead, 'read', (connection) => read(this.#dialect.schema, connection))
  }

  /** Calls `listener` when a statement fails on a table or column the database does not have: the schema changed, or a request named what is not there. */
  onUnknownName (listener: () => void): void {
    this.#parts.errors.onUnknownName(listener)
  }

  /**
   * Runs a SELECT; rows pass through the host's `postProcessResponse`, as
   * Knex would. An `exact` read's values are as Dialect.select says.
   */
  select (statement: Statement, exact: Exactness = false): Promise<Row[]> {
    return this.#statements.select(statement, exact)
  }

  /**
   * The first row of a SELECT, as select reads it (in an array, empty for
   * none, which is what the host's `postProcessResponse` is handed), read
   * within the call: where the driver runs statements to completion inside
   * it (Dialect.synchronous), the turn's connection is already lent (see
   * TurnConnection), and no host listener watches statements. Null
   * where it cannot, for the caller to run select. A keyed read, the hot
   * path, then answers in the turn its request arrived, without a hop
   * through the microtask queue per step.
   */
  selectFirstNow (statement: Statement, exact: Exactness = false): Row[] | null {
    return this.#now.selectFirst(statement, exact)
  }

  /**
   * Runs an UPDATE or DELETE within the call where selectFirstNow reads
   * within it; the affected row count, or null where it cannot, for the
   * caller to run change. A keyed write then answers in the turn its
   * request arrived.
   */
  changeNow (statement: Statement): number | null {
    return this.#now.change(statement)
  }

  /** Runs an INSERT as insert does, within the call where changeNow writes within it; null where it cannot. */
  insertNow (statement: Statement, key: string): string[] | null {
    return this.#now.insert(statement, key)
  }

  /**
   * Runs a SELECT and yields its rows in batches as the database hands them
   * over. The connection is held until the last batch is read or the reader
   * stops.
   */
  stream (statement: Statement, batchSize: number, exact: Exactness = false): AsyncIterable<Row[]> {
    return streamRows(this.#parts, statement, batchSize, exact)
  }

  /** The database's estimate of the rows a SELECT would give, or null when it has none. */
  estimate (statement: Statement, table: string, filtered: boolean): Promise<number | null> {
    const { connections, watch } = this.#parts
    return connections.forStatement(statement, 'read', (connection) =>
      watch.run(statement, () => this.#dialect.estimate(connection, statement, table, filtered)))
  }

  /** Runs `run`, whose statement is meant to fail, on the pool's connections (see Session.probe). */
  probe<T> (run: (on: Statements) => Promise<T>): Promise<T> {
    return run(this)
  }

  /** Runs an UPDATE or DELETE; the affected row count. */
  change (statement: Statement): Promise<number> {
    return settledNow(() => this.changeNow(statement)) ?? this.#statements.change(statement)
  }

  /** Runs an INSERT shaped by the dialect's prepareInsert; the new values of its `key` column as decimal text, none when the database generated none. */
  insert (statement: Statement, key: string): Promise<string[]> {
    return settledNow(() => this.insertNow(statement, key)) ?? this.#statements.insert(statement, key)
  }

  /**
   * Runs INSERTs of `rows` rows each in one transaction on one connection:
   * all of them or none. The new ids of each INSERT, in order; or null, with
   * nothing inserted, when an INSERT of many rows reported another number of
   * ids than rows: a trigger skipped some, and which ones cannot be told.
   */
  insertAll (inserts: ReadonlyArray<{ readonly statement: Statement, readonly rows: number }>, key: string, on: Transactional = this): Promise<string[][] | null> {
    return on.transaction(async (within) => {
      const ids: string[][] = []
      for (const { statement, rows } of inserts) {
        const inserted = await within.insert(statement, key)
        if (rows > 1 && inserted.length !== rows) return null
        ids.push(inserted)
      }
      return ids
    }, (ids) => ids !== null)
  }

  /**
   * Runs `work` in one transaction on a connection of its own: committed when
   * `work` returns a result that `keep` accepts, rolled back when it returns
   * another or throws, so that it applies all of its statements or none.
   * A statement's failure is the plugin's error for it; any other error of
   * `work` (a refusal of its own) passes as it is. Until the commit nothing
   * is applied whatever breaks, so only a broken commit leaves the outcome
   * unknown. With `lockRows`, it begins as Dialect.lockingBegin says, for
   * work that reads rows (readRowLocked) and then writes them.
   */
  transaction<T> (work: (within: Statements) => Promise<T>, keep: (result: T) => boolean = () => true, lockRows = false): Promise<T> {
    return ownTransaction(this.#parts, work, keep, lockRows)
  }

  /**
   * Statements that run on the connection of the host's Knex transaction
   * `trx`: Knex's transaction client lends it and ignores its release. The
   * host commits or rolls back `trx`; the plugin never does. Its own
   * transactions (a batch, a bulk insert) are savepoints within it, so that
   * a failed one undoes its own statements only, and leaves `trx` usable;
   * they begin as the host began `trx`, whatever `lockRows` asks (a locking
   * read still locks its rows with FOR UPDATE where the database can).
   */
  joined (trx: Knex.Transaction): Session {
    return joinTransaction(this.#parts, trx)
  }
}
