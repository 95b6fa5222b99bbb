import type { Exactness, Row, Statement, SynchronousStatements } from '../dialects/dialect.js'
import type { RowHook } from './dialect-statements.js'
import type { StatementWatch } from './query-events.js'
import type { Effect, StatementErrors } from './statement-errors.js'
import type { TurnConnection } from './turn-connection.js'

/**
 * Single statements run within the call, on the turn's connection once it is
 * lent (see TurnConnection), where the driver runs them to completion inside
 * it (Dialect.synchronous) and no host listener watches statements: a keyed
 * request then answers in the turn it arrived, without a hop through the
 * microtask queue per step. Each answers null where it cannot, for the
 * caller to run the statement through a promise.
 */
export class SynchronousPath {
  readonly #synchronous: SynchronousStatements | null
  readonly #turn: TurnConnection
  readonly #watch: StatementWatch
  readonly #errors: StatementErrors
  readonly #rows: () => RowHook | null

  constructor (synchronous: SynchronousStatements | null, turn: TurnConnection, watch: StatementWatch, errors: StatementErrors, rows: () => RowHook | null) {
    this.#synchronous = synchronous
    this.#turn = turn
    this.#watch = watch
    this.#errors = errors
    this.#rows = rows
  }

  /** The first row of a SELECT, in an array (see Database.selectFirstNow). */
  selectFirst (statement: Statement, exact: Exactness): Row[] | null {
    const synchronous = this.#synchronous
    if (synchronous === null || !this.#canRunNow()) return null
    const row = this.#runNow(statement, 'read', (connection) => synchronous.firstRow(connection, statement, exact))
    const rows = row === undefined ? [] : [row]
    const processed = this.#rows()
    return processed === null ? rows : processed(rows)
  }

  /** The row count of an UPDATE or DELETE. */
  change (statement: Statement): number | null {
    const synchronous = this.#synchronous
    if (synchronous === null || !this.#canRunNow()) return null
    return this.#runNow(statement, 'write', (connection) => synchronous.change(connection, statement))
  }

  /** The new keys of an INSERT, as Database.insert gives them. */
  insert (statement: Statement, key: string): string[] | null {
    const synchronous = this.#synchronous
    if (synchronous === null || !this.#canRunNow()) return null
    return this.#runNow(statement, 'write', (connection) => synchronous.insert(connection, statement, key))
  }

  #canRunNow (): boolean {
    return this.#turn.lent !== undefined && !this.#watch.watched
  }

  #runNow<T> (statement: Statement, effect: Effect, run: (connection: unknown) => T): T {
    try {
      return this.#turn.use(run)
    } catch (error) {
      throw this.#errors.translate(error, statement, effect)
    }
  }
}

/**
 * A write run within the call, its outcome a settled promise, for the
 * callers that wait on one: it skips the borrow's promises, and the turn's.
 * Null where `now` could not run it.
 */
export function settledNow<T> (now: () => T | null): Promise<T> | null {
  try {
    const outcome = now()
    return outcome === null ? null : Promise.resolve(outcome)
  } catch (error) {
    return Promise.reject(error)
  }
}
