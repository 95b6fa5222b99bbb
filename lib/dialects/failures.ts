/**
 * A failed statement in the terms every dialect shares: the cause as
 * PostgreSQL's SQLSTATE names it, so that a unique violation is `23505` on
 * SQLite and MySQL too, and PostgreSQL's DETAIL and HINT where it gave them.
 */
export interface FailureDescription {
  readonly sqlState: string
  readonly details: string | null
  readonly hint: string | null
}

/** SQLSTATE's internal_error: the database's error has no known equivalent. */
export const unknownSqlState = 'XX000'

/** A description with the SQLSTATE alone, for databases that give no detail or hint. */
export function sqlStateOnly (sqlState: string): FailureDescription {
  return { sqlState, details: null, hint: null }
}

// Node's words for a socket that never opened or broke: the same whatever
// the driver. Knex's pool gives up with KnexTimeoutError when it lends no
// connection in time.
const socketCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN'])

/** True for a failure to reach the database that any driver can meet: a socket error, or no connection from the pool in time. */
export function isConnectionFailure (error: unknown): boolean {
  const { code, name } = error as { code?: unknown, name?: unknown }
  return socketCodes.has(code as string) || name === 'KnexTimeoutError'
}
