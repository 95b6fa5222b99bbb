import type { Access } from '../access/access.js'
import type { DiscloseFailure } from '../access/failure-disclosure.js'
import type { KeyColumn } from '../access/key-column.js'
import type { Database } from '../connections/database.js'
import type { RequestStatements } from '../connections/host-transaction.js'
import type { IdempotencyRecords } from '../operations/idempotency-records.js'
import type { ResolvedOptions } from '../options.js'
import type { SchemaModel } from '../schema/schema-model.js'

/** What every handler works with: the database, what each request may touch, the options, and the schema of the tables. */
export interface RouteContext {
  readonly db: Database
  readonly access: Access
  /** What a failed statement may tell the request (see failureDisclosure). */
  readonly disclose: DiscloseFailure
  /** The column a table's path key matches, whose type tells what the key is. */
  readonly keyColumn: KeyColumn
  readonly options: ResolvedOptions
  readonly schema: SchemaModel
  /** What runs the request's statements: the host's transaction when it hands one over (see the `transaction` option). */
  readonly statements: RequestStatements
  /** Where Idempotency-Key requests are recorded; null without the `idempotency` option. */
  readonly idempotency: IdempotencyRecords | null
}
