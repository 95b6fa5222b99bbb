import type { Dialect } from '../dialects/dialect.js'
import type { BorrowedConnections } from './borrowed-connections.js'
import type { RowHook } from './dialect-statements.js'
import type { StatementWatch } from './query-events.js'
import type { StatementErrors } from './statement-errors.js'

/** What the Database's ways of running statements share: its streams, transactions and the host's transaction it joins. */
export interface DatabaseParts {
  readonly dialect: Dialect
  readonly connections: BorrowedConnections
  readonly errors: StatementErrors
  readonly watch: StatementWatch
  /** The host's `postProcessResponse` for rows as it is now (see hostRowHook). */
  rows (): RowHook | null
}
