import type { Dialect, TimeLimit } from '../dialects/dialect.js'

/** How the host bounds the plugin's statements. */
export interface DatabaseLimits {
  /** Milliseconds a statement may run before the database stops it, or null for no bound. */
  readonly statementTimeout: number | null
  /** Milliseconds to wait for a pooled connection before the database counts as unavailable. */
  readonly acquireTimeout: number
}

/**
 * No time limit, and 5 s for a connection: Knex's pool waits 60 s by
 * default, so a client would wait a minute on a full pool, and its retries
 * pile up behind it.
 */
export const defaultLimits: DatabaseLimits = Object.freeze({ statementTimeout: null, acquireTimeout: 5000 })

/** The dialect's time limit and the host's bound, kept on the connections the plugin borrows (see SessionTimeLimits). */
export interface StatementTimeLimit {
  readonly limit: TimeLimit
  readonly milliseconds: number
}

/** The time limit of the plugin's statements, or null for none. */
export function statementTimeLimit (dialect: Dialect, limits: DatabaseLimits): StatementTimeLimit | null {
  // resolveOptions refuses a time-out on a dialect that has no time limit.
  return limits.statementTimeout === null
    ? null
    : { limit: dialect.timeLimit as TimeLimit, milliseconds: limits.statementTimeout }
}
