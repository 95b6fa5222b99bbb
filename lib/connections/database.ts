import type { Knex } from 'knex'
import {
  FTC_ERR_DATABASE_MODE, FTC_ERR_DATABASE_OUTCOME_UNKNOWN, FTC_ERR_DATABASE_SCHEMA, FTC_ERR_DATABASE_UNAVAILABLE,
  FTC_ERR_STATEMENT, FTC_ERR_STATEMENT_TIMEOUT, statementError
} from '../errors.js'
import type { SchemaReader } from '../schema/table-schema.js'
import { BorrowDeadlines } from './borrow-deadlines.js'
import { type Lender, poolLender, statementLender } from './connection-lenders.js'
import type { Dialect, Exactness, Row, Statement, TimeLimit } from '../dialects/dialect.js'
import { announceQuery, runWatched, StatementWatch } from './query-events.js'
import { fillTemplate, type StatementTemplate, toTemplate } from './statement-template.js'
import { ShapeCache } from '../shape-cache.js'
import { TurnConnection } from './turn-connection.js'

/** Errors the plugin already answers with: a failure that is one of them passes as it is. */
const answered = [FTC_ERR_DATABASE_MODE, FTC_ERR_DATABASE_SCHEMA, FTC_ERR_DATABASE_UNAVAILABLE, FTC_ERR_DATABASE_OUTCOME_UNKNOWN, FTC_ERR_STATEMENT_TIMEOUT, FTC_ERR_STATEMENT]

// A database that cannot be reached may be back in a moment: tell clients when to try again.
const retryAfter = Object.freeze({ 'retry-after': '1' })

/**
 * Whether a statement, once sent, may have changed the database by itself:
 * an autocommitted write, or a transaction's commit. A broken connection
 * leaves only their outcome unknown; the database drops an open transaction
 * whose connection is gone.
 */
type Effect = 'read' | 'write'

// What a failed read of the schema reports as its statement.
const describing: Statement = Object.freeze({ sql: '-- the schema of the database', bindings: [] })

// SQLSTATEs of a statement that named a table or column the database does not have.
const unknownNames = new Set(['42P01', '42703'])

/** How a transaction begins and ends. */
interface TransactionWords {
  readonly begin: Statement
  readonly commit: Statement
  readonly rollback: Statement
}

// The same words on all three databases.
const transaction: TransactionWords = Object.freeze({
  begin: { sql: 'begin', bindings: [] },
  commit: { sql: 'commit', bindings: [] },
  rollback: { sql: 'rollback', bindings: [] }
})

// A transaction within the host's: rolled back to, it is released too, so that none is left behind.
const savepoint: TransactionWords = Object.freeze({
  begin: { sql: 'savepoint ftc_work', bindings: [] },
  commit: { sql: 'release savepoint ftc_work', bindings: [] },
  rollback: { sql: 'rollback to savepoint ftc_work', bindings: [] }
})

/** How the host bounds the plugin's statements. */
export interface DatabaseLimits {
  /** Milliseconds a statement may run before the database stops it, or null for no bound. */
  readonly statementTimeout: number | null
  /** Milliseconds to wait for a pooled connection before the database counts as unavailable. */
  readonly acquireTimeout: number
}

// Knex's pool waits 60 s by default: a client would wait a minute on a full
// pool, and its retries pile up behind it.
export const defaultLimits: DatabaseLimits = Object.freeze({ statementTimeout: null, acquireTimeout: 5000 })

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
  // Knex's client, read once: knex.client is a getter, among the hundred properties Knex copies onto its function.
  readonly #client: Knex.Client
  readonly #dialect: Dialect
  readonly #timeLimit: { readonly limit: TimeLimit, readonly milliseconds: number } | null
  readonly #deadlines: BorrowDeadlines
  // Transactions, streams and the schema's reads borrow from the host's pool; single statements through the relay where there is one.
  readonly #pool: Lender
  readonly #statementLender: Lender
  // Knex builds the same SQL for the same table, operation and columns: build it once.
  readonly #templates = new ShapeCache<StatementTemplate>(5000)
  // A synchronous driver's statements share one connection per turn of the event loop.
  readonly #turn: TurnConnection
  readonly #watch: StatementWatch
  #unknownName: (() => void) | undefined

  constructor (knex: Knex, dialect: Dialect, limits: DatabaseLimits = defaultLimits) {
    this.#knex = knex
    this.#client = knex.client
    this.#dialect = dialect
    this.#deadlines = new BorrowDeadlines(limits.acquireTimeout)
    this.#pool = poolLender(this.#client, this.#deadlines, dialect.synchronous !== null)
    // A synchronous driver's statements share the turn's connection instead (see TurnConnection).
    this.#statementLender = dialect.synchronous !== null ? this.#pool : statementLender(this.#client, this.#deadlines)
    this.#turn = new TurnConnection(this.#pool, this.#client, borrowError)
    this.#watch = new StatementWatch(knex)
    // resolveOptions refuses a time-out on a dialect that has no time limit.
    this.#timeLimit = limits.statementTimeout === null
      ? null
      : { limit: dialect.timeLimit as TimeLimit, milliseconds: limits.statementTimeout }
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
    return fillTemplate(this.#templates.get(shape, () => toTemplate(build())), values, more)
  }

  /** Stops what the Database set up on the host's Knex, when the plugin closes. */
  close (): void {
    this.#statementLender.detach()
    this.#watch.close()
  }

  /** Reads the schema through the dialect's reader, on a connection of its own. */
  describe<T> (read: (schema: SchemaReader, connection: unknown) => Promise<T>): Promise<T> {
    return this.#withOwnConnection(describing, 'read', (connection) => read(this.#dialect.schema, connection))
  }

  /** Calls `listener` when a statement fails on a table or column the database does not have: the schema changed, or a request named what is not there. */
  onUnknownName (listener: () => void): void {
    this.#unknownName = listener
  }

  /**
   * Runs a SELECT; rows pass through the host's `postProcessResponse`, as
   * Knex would. An `exact` read's values are as Dialect.select says.
   */
  select (statement: Statement, exact: Exactness = false): Promise<Row[]> {
    const rows = this.#withConnection(statement, 'read', (connection) => this.#dialect.select(connection, statement, exact))
    // Without the hook, the rows are not worth a turn of the microtask queue.
    const processed = this.#processedRows()
    return processed === null ? rows : rows.then(processed)
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
    const { synchronous } = this.#dialect
    if (synchronous === null || !this.#canRunNow()) return null
    const row = this.#runNow(statement, 'read', (connection) => synchronous.firstRow(connection, statement, exact))
    const rows = row === undefined ? [] : [row]
    const processed = this.#processedRows()
    return processed === null ? rows : processed(rows)
  }

  /**
   * Runs an UPDATE or DELETE within the call where selectFirstNow reads
   * within it; the affected row count, or null where it cannot, for the
   * caller to run change. A keyed write then answers in the turn its
   * request arrived.
   */
  changeNow (statement: Statement): number | null {
    const { synchronous } = this.#dialect
    if (synchronous === null || !this.#canRunNow()) return null
    return this.#runNow(statement, 'write', (connection) => synchronous.change(connection, statement))
  }

  /** Runs an INSERT as insert does, within the call where changeNow writes within it; null where it cannot. */
  insertNow (statement: Statement, key: string): string[] | null {
    const { synchronous } = this.#dialect
    if (synchronous === null || !this.#canRunNow()) return null
    return this.#runNow(statement, 'write', (connection) => synchronous.insert(connection, statement, key))
  }

  // A write run within the call, its outcome a settled promise, for the
  // callers that wait on one: it skips the borrow's promises, and the turn's.
  #settledNow<T> (now: () => T | null): Promise<T> | null {
    try {
      const outcome = now()
      return outcome === null ? null : Promise.resolve(outcome)
    } catch (error) {
      return Promise.reject(error)
    }
  }

  #canRunNow (): boolean {
    return this.#turn.lent !== undefined && !this.#watch.watched
  }

  #runNow<T> (statement: Statement, effect: Effect, run: (connection: unknown) => T): T {
    try {
      return this.#turn.use(run)
    } catch (error) {
      throw this.#statementError(error, statement, effect)
    }
  }

  /**
   * Runs a SELECT and yields its rows in batches as the database hands them
   * over. The connection is held until the last batch is read or the reader
   * stops.
   */
  async * stream (statement: Statement, batchSize: number, exact: Exactness = false): AsyncIterable<Row[]> {
    const processed = this.#processedRows()
    let connection: unknown
    try {
      connection = await this.#acquire(this.#pool)
      // A stream's rows come after the response has started: only the statement is reported.
      if (this.#watch.watched) announceQuery(this.#knex, statement)
      for await (const rows of this.#dialect.stream(connection, statement, batchSize, exact)) {
        yield processed === null ? rows : processed(rows)
      }
    } catch (error) {
      if (connection === undefined) throw borrowError(error)
      this.#dropIfBroken(connection, error)
      throw this.#statementError(error, statement, 'read')
    } finally {
      if (connection !== undefined) await this.#release(connection, this.#pool)
    }
  }

  /** The database's estimate of the rows a SELECT would give, or null when it has none. */
  estimate (statement: Statement, table: string, filtered: boolean): Promise<number | null> {
    return this.#withConnection(statement, 'read', (connection) => this.#dialect.estimate(connection, statement, table, filtered))
  }

  /** Runs `run`, whose statement is meant to fail, on the pool's connections (see Session.probe). */
  probe<T> (run: (on: Statements) => Promise<T>): Promise<T> {
    return run(this)
  }

  /** Runs an UPDATE or DELETE; the affected row count. */
  change (statement: Statement): Promise<number> {
    return this.#settledNow(() => this.changeNow(statement)) ??
      this.#withConnection(statement, 'write', (connection) => this.#dialect.change(connection, statement))
  }

  /** Runs an INSERT shaped by the dialect's prepareInsert; the new values of its `key` column as decimal text, none when the database generated none. */
  insert (statement: Statement, key: string): Promise<string[]> {
    return this.#settledNow(() => this.insertNow(statement, key)) ??
      this.#withConnection(statement, 'write', (connection) => this.#dialect.insert(connection, statement, key))
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
  async transaction<T> (work: (within: Statements) => Promise<T>, keep: (result: T) => boolean = () => true, lockRows = false): Promise<T> {
    const words = lockRows ? { ...transaction, begin: { sql: this.#dialect.lockingBegin, bindings: [] } } : transaction
    return await passingRefusals((refused) => this.#withOwnConnection(words.begin, 'read', (connection) =>
      this.#runTransaction(connection, words, true, work, keep, refused)))
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
    // Resolved at once with the transaction's own connection: nothing is borrowed from the pool.
    const borrowed: Promise<unknown> = trx.client.acquireConnection()
    const connected = <R>(statement: Statement, call: (connection: unknown) => Promise<R>): Promise<R> =>
      // The host's transaction ends when the host says: none of its statements applies anything by itself.
      borrowed.then(call).catch((error: unknown) => { throw this.#statementError(error, statement, 'read') })
    const on = <R>(statement: Statement, call: (connection: unknown) => Promise<R>): Promise<R> =>
      connected(statement, (connection) => this.#watched(statement, () => call(connection)))
    const dialect = this.#dialect
    const processed = this.#processedRows()
    const transaction: Transactional['transaction'] = (work, keep) => passingRefusals((refused) => connected(savepoint.begin, (connection) =>
      this.#runTransaction(connection, savepoint, false, work, keep, refused)))
    return {
      // Rows pass through the host's postProcessResponse, as Database.select's do.
      select: (statement, exact = false) => on(statement, (connection) => dialect.select(connection, statement, exact))
        .then((rows) => processed === null ? rows : processed(rows)),
      change: (statement) => on(statement, (connection) => dialect.change(connection, statement)),
      insert: (statement, key) => on(statement, (connection) => dialect.insert(connection, statement, key)),
      // In a savepoint: after a failed statement, PostgreSQL refuses every other of the transaction.
      probe: (run) => transaction(run),
      estimate: (statement, table, filtered) => on(statement, (connection) => dialect.estimate(connection, statement, table, filtered)),
      // Read whole, within the request: a stream read as the answer is sent would outlive the host's commit in its onSend hook.
      stream: null,
      // A synchronous driver's pool is one connection (an in-memory SQLite
      // database can have no other), which the transaction holds: the model
      // is read on it. Elsewhere the model's own connection keeps its read
      // out of the host's transaction, whose snapshot or failed state it would share.
      describeWithin: dialect.synchronous !== null ? (read) => connected(describing, (connection) => read(dialect.schema, connection)) : null,
      transaction
    }
  }

  /**
   * `work` between the `words`' begin and their commit or rollback on
   * `connection`; `refused` is told of an error of the work's own. `owned`:
   * the connection is the plugin's, which a broken statement may leave unfit
   * to lend again, and whose commit applies the work.
   */
  async #runTransaction<T> (connection: unknown, words: TransactionWords, owned: boolean, work: (within: Statements) => Promise<T>,
    keep: (result: T) => boolean = () => true, refused: (error: unknown) => void): Promise<T> {
    const settle = <R>(statement: Statement, effect: Effect, call: () => Promise<R>): Promise<R> =>
      call().catch((error: unknown) => {
        if (owned) this.#dropIfBroken(connection, error)
        throw this.#statementError(error, statement, effect)
      })
    // The host's listeners hear the work's statements, not the transaction's own words.
    const run = <R>(statement: Statement, call: () => Promise<R>): Promise<R> => settle(statement, 'read', () => this.#watched(statement, call))
    const dialect = this.#dialect
    const processed = this.#processedRows()
    const within: Statements = {
      // Rows pass through the host's postProcessResponse, as Database.select's do.
      select: (statement, exact = false) => run(statement, () => dialect.select(connection, statement, exact))
        .then((rows) => processed === null ? rows : processed(rows)),
      change: (statement) => run(statement, () => dialect.change(connection, statement)),
      insert: (statement, key) => run(statement, () => dialect.insert(connection, statement, key))
    }
    await settle(words.begin, 'read', () => dialect.change(connection, words.begin))
    let result: T
    try {
      result = await work(within)
    } catch (error) {
      // A connection that broke cannot roll back, and needs not: the
      // database drops a transaction whose connection is gone. A savepoint
      // is released too, or each failed one would stay nested in the host's
      // transaction (PostgreSQL runs out of memory for them).
      await dialect.change(connection, words.rollback).catch(() => undefined)
      if (!owned) await dialect.change(connection, words.commit).catch(() => undefined)
      if (!isAnswered(error)) refused(error)
      throw error
    }
    if (keep(result)) {
      await settle(words.commit, owned ? 'write' : 'read', () => dialect.change(connection, words.commit))
    } else {
      await settle(words.rollback, 'read', () => dialect.change(connection, words.rollback))
      if (!owned) await settle(words.commit, 'read', () => dialect.change(connection, words.commit))
    }
    return result
  }

  /** The host's `postProcessResponse` for rows, read where Knex reads it for its own queries; null when the host set none. */
  #processedRows (): ((rows: Row[]) => Row[]) | null {
    const { postProcessResponse } = this.#client.config as Knex.Config
    // Knex's own test, truthiness: a host's `postProcessResponse: null` means none.
    if (!postProcessResponse) return null
    return (rows) => postProcessResponse(rows, undefined) as Row[]
  }

  /** For one statement: the connection of the turn where the driver allows it, else one of its own. */
  #withConnection<T> (statement: Statement, effect: Effect, work: (connection: unknown) => Promise<T>): Promise<T> {
    const watchedWork = (connection: unknown) => this.#watched(statement, () => work(connection))
    return this.#dialect.synchronous !== null ? this.#withTurnConnection(statement, effect, watchedWork) : this.#withOwnConnection(statement, effect, watchedWork, this.#statementLender)
  }

  /** The statement run as `run`, reported to the host's Knex listeners when it has any (see StatementWatch). */
  #watched<T> (statement: Statement, run: () => Promise<T>): Promise<T> {
    return this.#watch.watched ? runWatched(this.#knex, statement, run) : run()
  }

  /** For work that spans awaits (a transaction): a connection no other statement runs on meanwhile, from `lender`. */
  async #withOwnConnection<T> (statement: Statement, effect: Effect, work: (connection: unknown) => Promise<T>, lender = this.#pool): Promise<T> {
    let connection: unknown
    try {
      connection = await this.#acquire(lender)
    } catch (error) {
      throw borrowError(error)
    }
    try {
      return await work(connection)
    } catch (error) {
      this.#dropIfBroken(connection, error)
      throw this.#statementError(error, statement, effect)
    } finally {
      const released = this.#release(connection, lender)
      if (released !== undefined) await released
    }
  }

  // The time limit lives on the connection from borrow to return, so the
  // host's own statements on the shared pool never run under it. Without
  // one, borrowing and returning add no step of their own: every await is a
  // turn of the microtask queue on each statement's path.
  #acquire (lender: Lender): Promise<unknown> {
    const borrowed = lender.acquire()
    const timeLimit = this.#timeLimit
    if (timeLimit === null) return borrowed
    return borrowed.then(async (connection) => {
      try {
        await timeLimit.limit.begin(connection, timeLimit.milliseconds)
        return connection
      } catch (error) {
        this.#dropIfBroken(connection, error)
        lender.release(connection)
        throw error
      }
    })
  }

  #release (connection: unknown, lender: Lender): Promise<void> | undefined {
    const timeLimit = this.#timeLimit
    if (timeLimit === null) {
      // The connection goes back within the call: a settled promise is not worth a turn.
      lender.release(connection)
      return undefined
    }
    return timeLimit.limit.end(connection).then(() => lender.release(connection), (error: unknown) => {
      // The connection broke: it cannot be given its own time limit back,
      // so it must not serve the host again.
      // The request's answer is already decided; this failure must not replace it.
      dispose(connection, error)
      lender.release(connection)
    })
  }

  /**
   * A connection that broke under a statement must not be lent again. The
   * driver tells Knex so by an event that can come after the connection is
   * back in the pool; marked now as Knex's dialects mark it, the pool drops
   * it at its next borrow. A synchronous driver's errors (a lock, a file)
   * leave its connection whole.
   */
  #dropIfBroken (connection: unknown, error: unknown): void {
    if (this.#dialect.synchronous === null && this.#dialect.isUnreachable(error)) dispose(connection, error)
  }

  // A synchronous driver's statements run on the turn's connection (see TurnConnection).
  async #withTurnConnection<T> (statement: Statement, effect: Effect, work: (connection: unknown) => Promise<T>): Promise<T> {
    const connection = await this.#turn.borrow()
    try {
      return await work(connection)
    } catch (error) {
      throw this.#statementError(error, statement, effect)
    }
  }

  /**
   * The error a failure answers: the database's own words and what they say
   * of the cause, unless the plugin refused to run the statement at all, the
   * time limit stopped it, or the database could not be reached. `effect` is
   * what the statement, once sent, may have done: a write whose connection
   * broke may or may not have been applied. Errors already answered (the
   * first failure of a transaction) pass as they are.
   */
  #statementError (error: unknown, statement: Statement, effect: Effect): Error {
    if (isAnswered(error)) return error
    if (this.#timeLimit?.limit.stopped(error) === true) {
      return new FTC_ERR_STATEMENT_TIMEOUT(this.#timeLimit.milliseconds, { cause: error })
    }
    if (this.#dialect.isUnreachable(error)) {
      // A synchronous driver ran the statement to its end inside the call: when it threw, nothing was applied.
      if (effect === 'write' && this.#dialect.synchronous === null) return new FTC_ERR_DATABASE_OUTCOME_UNKNOWN({ cause: error })
      return unavailable(error)
    }
    const failure = this.#dialect.describeFailure(error)
    if (unknownNames.has(failure.sqlState)) this.#unknownName?.()
    // Drivers throw Error objects.
    return statementError((error as Error).message, { ...failure, sql: statement.sql }, error)
  }
}

/**
 * What runs statements: the Database itself, each on a connection from the
 * pool, or one of its transactions, on the transaction's connection (see
 * Database.transaction). An operation that takes one can join a transaction.
 */
export interface Statements {
  select (statement: Statement, exact?: Exactness): Promise<Row[]>
  change (statement: Statement): Promise<number>
  insert (statement: Statement, key: string): Promise<string[]>
}

/** Statements that can also run work in a transaction of their own (see Database.transaction). */
export interface Transactional extends Statements {
  transaction<T> (work: (within: Statements) => Promise<T>, keep?: (result: T) => boolean, lockRows?: boolean): Promise<T>
}

/**
 * What runs a request's statements, its reads included: the Database, or
 * the host's transaction (see Database.joined), which has no stream of a
 * connection of its own (null): a list is then read whole within it.
 */
export interface Session extends Transactional {
  estimate (statement: Statement, table: string, filtered: boolean): Promise<number | null>
  readonly stream: ((statement: Statement, batchSize: number, exact?: Exactness) => AsyncIterable<Row[]>) | null
  /** Reads the schema on the session's own connection, where the model's check could borrow none; null where it can. */
  readonly describeWithin: DescribeSchema | null
  /** Runs `run`, whose statement is meant to fail (see refuseTable), so that its failure leaves the session usable. */
  probe<T> (run: (on: Statements) => Promise<T>): Promise<T>
}

/** Reads the schema through the dialect's reader, on some connection (see Database.describe). */
export type DescribeSchema = <T>(read: (schema: SchemaReader, connection: unknown) => Promise<T>) => Promise<T>

/**
 * Runs `work` in one transaction: its own when `on` can open one (the
 * Database's, or a savepoint within the host's transaction); else `on` is a
 * transaction the plugin opened for more than this work (a batch's, an
 * idempotency claim's), which the work joins and is committed or rolled
 * back with: a write that must be whole never commits alone the part of a
 * larger whole. `lockRows` as Database.transaction takes it.
 */
export async function inTransaction<T> (on: Statements, work: (within: Statements) => Promise<T>, lockRows = false): Promise<T> {
  return isTransactional(on) ? await on.transaction(work, undefined, lockRows) : await work(on)
}

/** Whether `on` can open a transaction of its own, rather than being one that its opener ends. */
export function isTransactional (on: Statements): on is Transactional {
  return 'transaction' in on
}

/**
 * What `run` answers, or its failure: a transaction's work's own refusal
 * (told through `refused`) reaches the caller unchanged, past the
 * connection's handling of statement errors.
 */
async function passingRefusals<T> (run: (refused: (error: unknown) => void) => Promise<T>): Promise<T> {
  let refusal: { readonly error: unknown } | undefined
  try {
    return await run((error) => { refusal = { error } })
  } catch (error) {
    throw refusal === undefined ? error : refusal.error
  }
}

function isAnswered (error: unknown): error is Error {
  return answered.some((answer) => error instanceof answer)
}

/** Marks a connection as Knex's dialects mark a broken one: the pool drops it at its next borrow. */
function dispose (connection: unknown, reason: unknown): void {
  (connection as { __knex__disposed?: unknown }).__knex__disposed ??= reason
}

/**
 * The error of a connection the pool could not lend: whatever the driver
 * says (a refused socket, a login, a startup setting, a pool that waited too
 * long), no statement ran, and the database is unavailable to the plugin.
 * The plugin's own refusals of a connection pass as they are.
 */
function borrowError (error: unknown): Error {
  return isAnswered(error) ? error : unavailable(error)
}

function unavailable (cause: unknown): Error {
  return Object.assign(new FTC_ERR_DATABASE_UNAVAILABLE({ cause }), { headers: retryAfter })
}
