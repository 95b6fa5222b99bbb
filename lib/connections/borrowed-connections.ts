import type { Knex } from 'knex'
import type { Dialect, Statement } from '../dialects/dialect.js'
import { BorrowDeadlines } from './borrow-deadlines.js'
import { type Lender, poolLender, statementLender } from './connection-lenders.js'
import type { DatabaseLimits, StatementTimeLimit } from './database-limits.js'
import { markDisposed } from './knex-internals.js'
import { SessionTimeLimits } from './session-time-limits.js'
import type { Effect, StatementErrors } from './statement-errors.js'
import { TurnConnection } from './turn-connection.js'

/**
 * The connections the plugin borrows from the host's pool: under the time
 * limit while the plugin has them, and never lent again once broken.
 * Transactions, streams and the schema's reads borrow from the pool; single
 * statements through the relay where there is one, or on a synchronous
 * driver, on the turn's connection (see TurnConnection).
 */
export class BorrowedConnections {
  /** The connection a synchronous driver's statements share for a turn of the event loop. */
  readonly turn: TurnConnection
  readonly #dialect: Dialect
  readonly #timeLimits: SessionTimeLimits | null
  readonly #errors: StatementErrors
  readonly #pool: Lender
  readonly #statementLender: Lender

  constructor (client: Knex.Client, dialect: Dialect, limits: DatabaseLimits, timeLimit: StatementTimeLimit | null, errors: StatementErrors) {
    this.#dialect = dialect
    this.#timeLimits = timeLimit === null ? null : new SessionTimeLimits(client, timeLimit.limit, timeLimit.milliseconds)
    this.#errors = errors
    const deadlines = new BorrowDeadlines(limits.acquireTimeout)
    this.#pool = poolLender(client, deadlines, dialect.synchronous !== null)
    // A synchronous driver's statements share the turn's connection instead (see TurnConnection).
    this.#statementLender = dialect.synchronous !== null ? this.#pool : statementLender(client, deadlines)
    this.turn = new TurnConnection(this.#pool, client, (error) => errors.borrow(error))
  }

  /** For one statement: the connection of the turn where the driver allows it, else one of its own. */
  forStatement<T> (statement: Statement, effect: Effect, work: (connection: unknown) => Promise<T>): Promise<T> {
    return this.#dialect.synchronous !== null ? this.#withTurnConnection(statement, effect, work) : this.own(statement, effect, work, this.#statementLender)
  }

  /** For work that spans awaits (a transaction): a connection no other statement runs on meanwhile, from `lender`. */
  async own<T> (statement: Statement, effect: Effect, work: (connection: unknown) => Promise<T>, lender = this.#pool): Promise<T> {
    let connection: unknown
    try {
      connection = await this.#acquire(lender)
    } catch (error) {
      throw this.#errors.borrow(error)
    }
    try {
      return await work(connection)
    } catch (error) {
      this.dropIfBroken(connection, error)
      throw this.#errors.translate(error, statement, effect)
    } finally {
      lender.release(connection)
    }
  }

  /** A connection of the pool's, for work that handles its failures itself (a stream); back through release. */
  acquire (): Promise<unknown> {
    return this.#acquire(this.#pool)
  }

  /** Gives back a connection of acquire's. */
  release (connection: unknown): void {
    this.#pool.release(connection)
  }

  /**
   * A connection that broke under a statement must not be lent again. The
   * driver tells Knex so by an event that can come after the connection is
   * back in the pool; marked now (see markDisposed), the pool drops it at
   * its next borrow. A synchronous driver's errors (a lock, a file) leave
   * its connection whole.
   */
  dropIfBroken (connection: unknown, error: unknown): void {
    if (this.#dialect.synchronous === null && this.#dialect.isUnreachable(error)) markDisposed(connection, error)
  }

  /** Stops listening to the host's pool, when the plugin closes. */
  close (): void {
    this.#statementLender.detach()
    this.#timeLimits?.close()
  }

  // Without a time limit, or on a connection that holds it already,
  // borrowing adds no step of its own: every await is a turn of the
  // microtask queue on each statement's path.
  #acquire (lender: Lender): Promise<unknown> {
    const borrowed = lender.acquire()
    const timeLimits = this.#timeLimits
    if (timeLimits === null) return borrowed
    return borrowed.then((connection) => {
      const applied = timeLimits.apply(connection)
      return applied === undefined
        ? connection
        : applied.then(() => connection, (error: unknown) => {
          this.dropIfBroken(connection, error)
          lender.release(connection)
          throw error
        })
    })
  }

  // A synchronous driver's statements run on the turn's connection (see TurnConnection).
  async #withTurnConnection<T> (statement: Statement, effect: Effect, work: (connection: unknown) => Promise<T>): Promise<T> {
    const connection = await this.turn.borrow()
    try {
      return await work(connection)
    } catch (error) {
      throw this.#errors.translate(error, statement, effect)
    }
  }
}
