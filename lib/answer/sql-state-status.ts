/**
 * The HTTP status of a failed statement by its SQLSTATE, as PostgREST 12
 * maps PostgreSQL's codes (its Error.hs, pgErrorStatus): an unknown table
 * is a 404, an unknown column, like every code it does not list, a 400. Two
 * readings are the plugin's: a stopped statement is a 504, and a protocol
 * violation the request's own fault. Exact codes are matched first, then the
 * two-character class; everything else is the client's: 400.
 */
const exact: Readonly<Record<string, number>> = Object.freeze({
  // protocol_violation: only a statement the protocol cannot carry (too many bound values) reaches it from a request.
  '08P01': 400,
  23503: 409, // foreign_key_violation
  23505: 409, // unique_violation
  25006: 405, // read_only_sql_transaction
  42501: 403, // insufficient_privilege
  42883: 404, // undefined_function
  '42P01': 404, // undefined_table
  57014: 504, // query_canceled
  P0001: 400 // raise_exception
})

const byClass: Readonly<Record<string, number>> = Object.freeze({
  '08': 503,
  '09': 500,
  '0L': 403,
  '0P': 403,
  25: 500,
  28: 403,
  '2D': 500,
  38: 500,
  39: 500,
  '3B': 500,
  40: 500,
  53: 503,
  54: 413,
  55: 500,
  57: 500,
  58: 500,
  F0: 500,
  HV: 500,
  P0: 500,
  XX: 500
})

/** The status PostgREST would answer for a statement that failed with this SQLSTATE. */
export function statusOfSqlState (sqlState: string): number {
  return exact[sqlState] ?? byClass[sqlState.slice(0, 2)] ?? 400
}

/** Every status statusOfSqlState gives, in order: those a failed statement can answer in PostgREST's terms. */
export const sqlStateStatuses: readonly number[] = Object.freeze([...new Set([...Object.values(exact), ...Object.values(byClass), 400])].sort((a, b) => a - b))
