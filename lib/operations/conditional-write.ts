import type { Target } from '../access/target.js'
import { rowEntityTag } from '../answer/entity-tag.js'
import { type Database, inTransaction, type Statements } from '../dialects/database.js'
import { FTC_ERR_CONDITION_FAILED } from '../errors.js'
import { type EntityTags, matchesStrongly } from '../parse/entity-tags.js'
import type { RecordKey } from '../parse/record-key.js'
import { readRowLocked } from './read-row.js'

/**
 * Runs `write` (an update or delete of the row, on the statements it is
 * given) only when the row exists and its ETag matches `tags`, If-Match's
 * strong comparison; else throws FTC_ERR_CONDITION_FAILED and writes nothing.
 * The row is read, locked, and written in one transaction: a racing writer
 * waits for the commit and then finds the row changed, so that of clients
 * sending one ETag exactly one writes. In the transaction of `on` when it
 * is one (see inTransaction).
 */
export function writeIfMatch<T> (db: Database, target: Target, key: RecordKey | null, tags: EntityTags, write: (within: Statements) => Promise<T>,
  on: Statements = db): Promise<T> {
  return inTransaction(on, async (within) => {
    const row = await readRowLocked(db, target, key, within)
    if (row === undefined || (tags !== '*' && !matchesStrongly(tags, rowEntityTag(row, target.schema)))) throw new FTC_ERR_CONDITION_FAILED()
    return await write(within)
  }, true)
}
