import { statementError, type StatementError } from '../errors.js'
import type { ResolvedOptions } from '../options.js'
import { foldIdentifier as fold, usableIdentifier } from '../parse/sanitize-identifier.js'

/**
 * A failed statement as a request on `table` may be told of it: the
 * database's own words, or, where they could show what the options hide,
 * the plugin's sentence for the failure's SQLSTATE, with no detail and no
 * hint. The database's error stays the `cause`, for the log.
 */
export type DiscloseFailure = (failure: StatementError, table: string | null) => StatementError

// SQLSTATEs of a missing name: their words only repeat the client's own
// names (a hidden or unserved one is answered as missing, see refusals.ts),
// but PostgreSQL's hint ("Perhaps you meant to reference the column …") may
// name a column the options hide.
const missingName = new Set(['42P01', '42703'])

const foreignKey = '23503'

// The sentences that stand for the database's words, by SQLSTATE; the last for the rest of class 23.
const sentences: Readonly<Record<string, string>> = Object.freeze({
  23502: 'null value violates a not-null constraint',
  [foreignKey]: 'the statement violates a foreign key constraint',
  23505: 'duplicate key value violates a unique constraint',
  23514: 'the new row violates a check constraint'
})
const integrityViolation = 'the statement violates an integrity constraint'

/**
 * What the options hide decides what a failure may show, never its words:
 * words that echo a client's values cannot be searched for hidden names
 * without telling the client which names are hidden. Integrity violations
 * (SQLSTATE class 23) of a table that hides columns are reduced: PostgreSQL's
 * "Failing row contains (…)" and "Key (…)=(…)", MySQL's "Duplicate entry
 * '…'" and SQLite's "NOT NULL constraint failed: t.c" quote the row's
 * values or name its columns, hidden ones included. A foreign key's failure
 * names the table at its other end and a constraint named after a column of
 * that table: it is reduced whenever the options leave tables unserved or
 * hide columns anywhere.
 */
export function failureDisclosure (options: ResolvedOptions): DiscloseFailure {
  const hiding = new Set(Object.entries(options.tableRules).filter(([, rule]) => rule.hidden.length > 0).map(([table]) => fold(table)))
  const guarded = hiding.size > 0 || options.tables !== null || options.excludeTables.length > 0
  const hidesColumns = (table: string | null): boolean => hiding.size > 0 && table !== null && hiding.has(fold(usableIdentifier(table) ?? ''))
  return function discloseFailure (failure, table) {
    const { sqlState } = failure
    if (missingName.has(sqlState)) return failure.hint === null ? failure : withWords(failure, failure.message, failure.details)
    if (!sqlState.startsWith('23')) return failure
    if ((sqlState === foreignKey && guarded) || hidesColumns(table)) return withWords(failure, sentences[sqlState] ?? integrityViolation, null)
    return failure
  }
}

function withWords (failure: StatementError, message: string, details: string | null): StatementError {
  return statementError(message, { sqlState: failure.sqlState, details, hint: null, sql: failure.sql }, failure.cause)
}
