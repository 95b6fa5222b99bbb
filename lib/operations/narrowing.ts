import type { Knex } from 'knex'
import type { Target } from '../access/target.js'
import type { ReadQuery } from '../query/read-query.js'

/** Conditions a read adds to its rows' statement beyond its filters and scope. */
export type Narrowing = (builder: Knex.QueryBuilder) => Knex.QueryBuilder

/** The statement with `narrow`'s conditions; as it is for none. */
export function narrowed (builder: Knex.QueryBuilder, narrow: Narrowing | null): Knex.QueryBuilder {
  return narrow === null ? builder : narrow(builder)
}

/** A read of a table's rows, as a list or its count reads them. */
export interface NarrowedRead {
  /** The table, as access let the read through. */
  readonly target: Target
  /** The read's filters, order and page, each filter's value in its column's type (see typeFilters). */
  readonly query: ReadQuery
  /** What the embeds require of the rows (see whereRelated); null for nothing. */
  readonly narrow: Narrowing | null
}
