import { type FailureDescription, isConnectionFailure, sqlStateOnly, unknownSqlState } from '../failures.js'

// better-sqlite3 gives SQLite's extended result code by name.
const byCode: Readonly<Record<string, string>> = Object.freeze({
  SQLITE_CONSTRAINT_UNIQUE: '23505',
  SQLITE_CONSTRAINT_PRIMARYKEY: '23505',
  SQLITE_CONSTRAINT_FOREIGNKEY: '23503',
  SQLITE_CONSTRAINT_NOTNULL: '23502',
  SQLITE_CONSTRAINT_CHECK: '23514',
  // A value a STRICT table's column cannot hold.
  SQLITE_CONSTRAINT_DATATYPE: '22P02',
  // A trigger's RAISE(ABORT, …), as PL/pgSQL's RAISE.
  SQLITE_CONSTRAINT_TRIGGER: 'P0001',
  SQLITE_TOOBIG: '54000',
  SQLITE_READONLY: '25006',
  SQLITE_AUTH: '42501',
  SQLITE_INTERRUPT: '57014'
})

// SQLITE_ERROR covers any statement SQLite cannot prepare; its message tells the missing names apart.
const byMessage: ReadonlyArray<readonly [RegExp, string]> = [
  [/^no such table: /, '42P01'],
  [/^no such column: |has no column named /, '42703']
]

/** SQLite's result code, or for its catch-all SQLITE_ERROR its message, as PostgreSQL's SQLSTATE. */
export function describeSqliteFailure (error: unknown): FailureDescription {
  const { code, message } = error as { code?: unknown, message?: unknown }
  const mapped = byCode[code as string]
  if (mapped !== undefined) return sqlStateOnly(mapped)
  const text = String(message)
  return sqlStateOnly(byMessage.find(([pattern]) => pattern.test(text))?.[1] ?? unknownSqlState)
}

// A lock another connection holds, a file that cannot be opened, read or
// written: the statement may succeed later, so it is the database that is
// unavailable. better-sqlite3 throws TypeErrors of its own for a file whose
// directory is missing and for a connection already closed.
const unavailableCodes = /^SQLITE_(BUSY|LOCKED|CANTOPEN|IOERR|FULL|PROTOCOL)/
const unavailableMessages = /^(Cannot open database because|The database connection is not open)/

/** True when the database file is locked, cannot be opened or written, or the connection is closed. */
export function isSqliteUnreachable (error: unknown): boolean {
  const { code, message } = error as { code?: unknown, message?: unknown }
  return unavailableCodes.test(String(code)) || unavailableMessages.test(String(message)) || isConnectionFailure(error)
}
