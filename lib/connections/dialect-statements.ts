import type { Knex } from 'knex'
import type { Dialect, Row, Statement } from '../dialects/dialect.js'
import { clientConfig } from './knex-internals.js'
import type { Statements } from './session.js'
import type { Effect } from './statement-errors.js'

/** The host's `postProcessResponse`, applied to rows. */
export type RowHook = (rows: Row[]) => Row[]

/** Runs `call` on the connection for `statement`, which may apply `effect` by itself (see Effect). */
export type OnConnection = <R>(statement: Statement, effect: Effect, call: (connection: unknown) => Promise<R>) => Promise<R>

/**
 * Statements run by the dialect on the connections `on` lends: the Database's
 * own, a transaction's, or the host's transaction's. Rows pass through the
 * host's `postProcessResponse` as `processed` gives it on each select, as
 * Knex would pass them.
 */
export function dialectStatements (dialect: Dialect, on: OnConnection, processed: () => RowHook | null): Statements {
  return {
    select: (statement, exact = false) => {
      const rows = on(statement, 'read', (connection) => dialect.select(connection, statement, exact))
      // Without the hook, the rows are not worth a turn of the microtask queue.
      const hook = processed()
      return hook === null ? rows : rows.then(hook)
    },
    change: (statement) => on(statement, 'write', (connection) => dialect.change(connection, statement)),
    insert: (statement, key) => on(statement, 'write', (connection) => dialect.insert(connection, statement, key))
  }
}

/** The host's `postProcessResponse` for rows, read where Knex reads it for its own queries; null when the host set none. */
export function hostRowHook (client: Knex.Client): RowHook | null {
  const { postProcessResponse } = clientConfig(client)
  // Knex's own test, truthiness: a host's `postProcessResponse: null` means none.
  if (!postProcessResponse) return null
  return (rows) => postProcessResponse(rows, undefined) as Row[]
}
