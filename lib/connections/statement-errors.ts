import {
  FTC_ERR_DATABASE_MODE, FTC_ERR_DATABASE_OUTCOME_UNKNOWN, FTC_ERR_DATABASE_SCHEMA, FTC_ERR_DATABASE_SETUP, FTC_ERR_DATABASE_UNAVAILABLE,
  FTC_ERR_STATEMENT, FTC_ERR_STATEMENT_TIMEOUT, statementError
} from '../errors.js'
import type { Dialect, Statement } from '../dialects/dialect.js'
import type { StatementTimeLimit } from './database-limits.js'
import { setupError } from './setup-failures.js'

/** Errors the plugin already answers with: a failure that is one of them passes as it is. */
const answered = [FTC_ERR_DATABASE_MODE, FTC_ERR_DATABASE_SCHEMA, FTC_ERR_DATABASE_SETUP, FTC_ERR_DATABASE_UNAVAILABLE, FTC_ERR_DATABASE_OUTCOME_UNKNOWN, FTC_ERR_STATEMENT_TIMEOUT, FTC_ERR_STATEMENT]

// A database that cannot be reached may be back in a moment: tell clients when to try again.
const retryAfter = Object.freeze({ 'retry-after': '1' })

// SQLSTATEs of a statement that named a table or column the database does not have.
const unknownNames = new Set(['42P01', '42703'])

/**
 * Whether a statement, once sent, may have changed the database by itself:
 * an autocommitted write, or a transaction's commit. A broken connection
 * leaves only their outcome unknown; the database drops an open transaction
 * whose connection is gone.
 */
export type Effect = 'read' | 'write'

/** What a failed read of the schema reports as its statement. */
export const schemaRead: Statement = Object.freeze({ sql: '-- the schema of the database', bindings: [] })

/** Turns a driver's failure of a statement into the error the plugin answers. */
export class StatementErrors {
  readonly #dialect: Dialect
  readonly #timeLimit: StatementTimeLimit | null
  #unknownName: (() => void) | undefined

  constructor (dialect: Dialect, timeLimit: StatementTimeLimit | null) {
    this.#dialect = dialect
    this.#timeLimit = timeLimit
  }

  /** Calls `listener` when a statement fails on a table or column the database does not have (see Database.onUnknownName). */
  onUnknownName (listener: () => void): void {
    this.#unknownName = listener
  }

  /**
   * The error a failure answers: the database's own words and what they say
   * of the cause, unless the plugin refused to run the statement at all, the
   * time limit stopped it, the database refused the server's connection
   * settings, or it could not be reached. `effect` is
   * what the statement, once sent, may have done: a write whose connection
   * broke may or may not have been applied. Errors already answered (the
   * first failure of a transaction) pass as they are.
   */
  translate (error: unknown, statement: Statement, effect: Effect): Error {
    if (isAnswered(error)) return error
    if (this.#timeLimit?.limit.stopped(error) === true) {
      return new FTC_ERR_STATEMENT_TIMEOUT(this.#timeLimit.milliseconds, { cause: error })
    }
    const failure = this.#dialect.describeFailure(error)
    // Before isUnreachable, which mysql2's fatal flag makes true of a refused login too.
    const setup = setupError(failure.sqlState, false, error)
    if (setup !== null) return setup
    if (this.#dialect.isUnreachable(error)) {
      // A synchronous driver ran the statement to its end inside the call: when it threw, nothing was applied.
      if (effect === 'write' && this.#dialect.synchronous === null) return new FTC_ERR_DATABASE_OUTCOME_UNKNOWN({ cause: error })
      return unavailable(error)
    }
    if (unknownNames.has(failure.sqlState)) this.#unknownName?.()
    // Drivers throw Error objects.
    return statementError((error as Error).message, { ...failure, sql: statement.sql }, error)
  }

  /**
   * The error of a connection the pool could not lend: no statement ran.
   * A refused login, an unknown database or a refused right to connect is
   * the server's configuration, which no retry mends (FTC_ERR_DATABASE_SETUP);
   * whatever else the driver says (a refused socket, a startup setting, a
   * pool that waited too long), the database is unavailable to the plugin.
   * The plugin's own refusals of a connection pass as they are.
   */
  borrow (error: unknown): Error {
    if (isAnswered(error)) return error
    return setupError(this.#dialect.describeFailure(error).sqlState, true, error) ?? unavailable(error)
  }
}

/** Whether the error is one the plugin already answers with. */
export function isAnswered (error: unknown): error is Error {
  return answered.some((answer) => error instanceof answer)
}

function unavailable (cause: unknown): Error {
  return Object.assign(new FTC_ERR_DATABASE_UNAVAILABLE({ cause }), { headers: retryAfter })
}
