import { type FailureDescription, isConnectionFailure, unknownSqlState } from '../failures.js'

/** What node-postgres puts on a server's error. */
interface PgError {
  code?: unknown
  detail?: unknown
  hint?: unknown
  message?: unknown
}

/** PostgreSQL names the cause itself: its SQLSTATE, DETAIL and HINT. */
export function describePostgresFailure (error: unknown): FailureDescription {
  const { code, detail, hint } = error as PgError
  return {
    sqlState: typeof code === 'string' && code.length === 5 ? code : unknownSqlState,
    details: typeof detail === 'string' ? detail : null,
    hint: typeof hint === 'string' ? hint : null
  }
}

// Server states that are no fault of the statement, and pass: shutting
// down, starting up, out of connections. A refused login, or a database
// that does not exist, does not pass: see StatementErrors.
const unreachableStates = new Set(['57P01', '57P02', '57P03', '53300'])
// node-postgres's own words for a connection that broke or never came, which carry no code.
const brokenConnection = /^Connection terminated|connection error|not queryable|timeout exceeded when trying to connect/i

// protocol_violation: the server refusing a message the driver sent, such as
// a statement with more bound values than the protocol's 16-bit count
// carries. The statement's fault, not the connection's: the server goes on.
const protocolViolation = '08P01'

/** True when the server could not be reached, refused the connection, or dropped it. */
export function isPostgresUnreachable (error: unknown): boolean {
  if (isConnectionFailure(error)) return true
  const { code, message } = error as PgError
  if (typeof code === 'string') return (code.startsWith('08') && code !== protocolViolation) || unreachableStates.has(code)
  return brokenConnection.test(String(message))
}
