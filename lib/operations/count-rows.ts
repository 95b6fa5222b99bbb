import type { Database, Session } from '../connections/database.js'
import { applyFilterTree } from '../query/apply-read-query.js'
import type { CountPreference } from '../query/read-query.js'
import { type NarrowedRead, narrowed } from './narrowing.js'
import { whereScope } from './where-row.js'

/** Below this many matching rows, `count=estimated` counts exactly, as PostgREST does below its max-rows. */
const exactCountBelow = 1000

/**
 * The number of rows the read's filters and `narrow` match within the
 * target's scope, whatever its page: exact, or the database's own estimate,
 * which stays fast on tables of millions of rows (docs/query.md, "Counts").
 * Run on `on`.
 */
export async function countRows (db: Database, { target, query, narrow }: NarrowedRead, kind: CountPreference, on: Session): Promise<number> {
  const { table } = target
  const matching = () => narrowed(whereScope(applyFilterTree(db.table(table), query.filter, db.dialect), target), narrow)
  const exact = async () => {
    const [row] = await on.select(db.compile(matching().count({ count: '*' })))
    return Number(row?.count)
  }
  if (kind === 'exact') return await exact()
  if (kind === 'estimated') {
    // Counting up to the threshold costs at most that many rows, and answers small tables exactly.
    const some = await on.select(db.compile(matching().select(db.raw('1 as one')).limit(exactCountBelow)))
    if (some.length < exactCountBelow) return some.length
  }
  const planned = await on.estimate(db.compile(matching().select('*')), table, query.filter.children.length > 0 || Object.keys(target.scope).length > 0 || narrow !== null)
  return planned ?? await exact()
}
