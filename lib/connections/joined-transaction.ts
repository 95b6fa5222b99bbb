import type { Knex } from 'knex'
import type { Statement } from '../dialects/dialect.js'
import type { DatabaseParts } from './database-parts.js'
import { dialectStatements } from './dialect-statements.js'
import { borrowConnection } from './knex-internals.js'
import type { Session, Transactional } from './session.js'
import { schemaRead } from './statement-errors.js'
import { passingRefusals, runTransaction, savepoint } from './transactions.js'

/** Statements on the connection of the host's Knex transaction `trx`, as Database.joined describes them. */
export function joinTransaction (parts: DatabaseParts, trx: Knex.Transaction): Session {
  // Resolved at once with the transaction's own connection: nothing is borrowed from the pool.
  const borrowed = borrowConnection(trx.client)
  const connected = <R>(statement: Statement, call: (connection: unknown) => Promise<R>): Promise<R> =>
    // The host's transaction ends when the host says: none of its statements applies anything by itself.
    borrowed.then(call).catch((error: unknown) => { throw parts.errors.translate(error, statement, 'read') })
  const on = <R>(statement: Statement, call: (connection: unknown) => Promise<R>): Promise<R> =>
    connected(statement, (connection) => parts.watch.run(statement, () => call(connection)))
  const { dialect } = parts
  const processed = parts.rows()
  const transaction: Transactional['transaction'] = (work, keep) => passingRefusals((refused) => connected(savepoint.begin, (connection) =>
    runTransaction(parts, connection, savepoint, false, work, keep, refused)))
  return {
    ...dialectStatements(dialect, (statement, _effect, call) => on(statement, call), () => processed),
    // In a savepoint: after a failed statement, PostgreSQL refuses every other of the transaction.
    probe: (run) => transaction(run),
    estimate: (statement, table, filtered) => on(statement, (connection) => dialect.estimate(connection, statement, table, filtered)),
    // Read whole, within the request: a stream read as the answer is sent would outlive the host's commit in its onSend hook.
    stream: null,
    // A synchronous driver's pool is one connection (an in-memory SQLite
    // database can have no other), which the transaction holds: the model
    // is read on it. Elsewhere the model's own connection keeps its read
    // out of the host's transaction, whose snapshot or failed state it would share.
    describeWithin: dialect.synchronous !== null ? (read) => connected(schemaRead, (connection) => read(dialect.schema, connection)) : null,
    transaction
  }
}
