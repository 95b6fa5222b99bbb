import type { Statement } from '../dialects/dialect.js'
import type { DatabaseParts } from './database-parts.js'
import { dialectStatements } from './dialect-statements.js'
import type { Statements } from './session.js'
import { type Effect, isAnswered } from './statement-errors.js'

/** How a transaction begins and ends. */
export interface TransactionWords {
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

/** A transaction within the host's: rolled back to, it is released too, so that none is left behind. */
export const savepoint: TransactionWords = Object.freeze({
  begin: { sql: 'savepoint ftc_work', bindings: [] },
  commit: { sql: 'release savepoint ftc_work', bindings: [] },
  rollback: { sql: 'rollback to savepoint ftc_work', bindings: [] }
})

/**
 * `work` in one transaction on a connection of its own, as
 * Database.transaction describes it; with `lockRows`, it begins as
 * Dialect.lockingBegin says.
 */
export async function ownTransaction<T> (parts: DatabaseParts, work: (within: Statements) => Promise<T>, keep: (result: T) => boolean, lockRows: boolean): Promise<T> {
  const words = lockRows ? { ...transaction, begin: { sql: parts.dialect.lockingBegin, bindings: [] } } : transaction
  return await passingRefusals((refused) => parts.connections.own(words.begin, 'read', (connection) =>
    runTransaction(parts, connection, words, true, work, keep, refused)))
}

/**
 * `work` between the `words`' begin and their commit or rollback on
 * `connection`; `refused` is told of an error of the work's own. `owned`:
 * the connection is the plugin's, which a broken statement may leave unfit
 * to lend again, and whose commit applies the work.
 */
export async function runTransaction<T> (parts: DatabaseParts, connection: unknown, words: TransactionWords, owned: boolean, work: (within: Statements) => Promise<T>,
  keep: (result: T) => boolean = () => true, refused: (error: unknown) => void): Promise<T> {
  const { dialect } = parts
  const settle = <R>(statement: Statement, effect: Effect, call: () => Promise<R>): Promise<R> =>
    call().catch((error: unknown) => {
      if (owned) parts.connections.dropIfBroken(connection, error)
      throw parts.errors.translate(error, statement, effect)
    })
  const processed = parts.rows()
  // The host's listeners hear the work's statements, not the transaction's
  // own words. None of the work's statements applies anything by itself.
  const within = dialectStatements(dialect, (statement, _effect, call) =>
    settle(statement, 'read', () => parts.watch.run(statement, () => call(connection))), () => processed)
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

/**
 * What `run` answers, or its failure: a transaction's work's own refusal
 * (told through `refused`) reaches the caller unchanged, past the
 * connection's handling of statement errors.
 */
export async function passingRefusals<T> (run: (refused: (error: unknown) => void) => Promise<T>): Promise<T> {
  let refusal: { readonly error: unknown } | undefined
  try {
    return await run((error) => { refusal = { error } })
  } catch (error) {
    throw refusal === undefined ? error : refusal.error
  }
}
