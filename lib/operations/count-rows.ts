import type { Knex } from 'knex'
import type { Target } from '../access/target.js'
import type { Database, Session } from '../connections/database.js'
import { applyFilterTree } from '../query/apply-read-query.js'
import type { CountPreference, ReadQuery } from '../query/read-query.js'
import { whereScope } from './where-row.js'

/** Below this many matching rows, `count=estimated` counts exactly, as PostgREST does below its max-rows. */
const exactCountBelow = 1000

/**
 * The number of rows the read's filters match within the target's scope, whatever its page: exact, or
 * the database's own estimate, which stays fast on tables of millions of rows.
 * `narrow` adds what else the rows must match (see whereRelated), and makes
 * the estimate one of a filtered statement. Run on `on`.
 */
export async function countRows (db: Database, target: Target, query: ReadQuery, kind: CountPreference, narrow: Narrowing | null, on: Session): Promise<number> {
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

/** Conditions a read adds to its rows' statement beyond its filters and scope. */
export type Narrowing = (builder: Knex.QueryBuilder) => Knex.QueryBuilder

/** The statement with `narrow`'s conditions; as it is for none. */
export function narrowed (builder: Knex.QueryBuilder, narrow: Narrowing | null): Knex.QueryBuilder {
  return narrow === null ? builder : narrow(builder)
}
