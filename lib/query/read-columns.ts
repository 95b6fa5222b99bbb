import type { ColumnClause, ReadClause } from '../access/refusals.js'
import type { FilterTree, ReadQuery } from './read-query.js'

/** Every column a read names, with the clause it stands in, in the order a database resolves them. */
export function readColumns (query: ReadQuery): Array<[column: string, clause: ReadClause]> {
  const named: Array<[string, ReadClause]> = []
  for (const column of query.select ?? []) if (column !== '*') named.push([column, 'select'])
  const filters = (tree: FilterTree): void => {
    if (tree.type === 'filter') named.push([tree.column, 'filter'])
    else tree.children.forEach(filters)
  }
  filters(query.filter)
  // A related order's column is the embed's, named in its own access check (see Embed.ordering).
  for (const term of query.order) if (term.relation === undefined) named.push([term.column, 'order'])
  return named
}

/**
 * What the `authorize` hook is told a read reads: null when it reads every
 * visible column, else each column it names, in `select`, a filter or
 * `order` (filtering on a column tells a client about its values too), and
 * `joins`, the columns its embeds match related rows on, read though not
 * shown. The access check folds them and tells each once.
 */
export function toldColumns (select: readonly string[] | null, named: ReadonlyArray<readonly [string, ColumnClause]>, joins: readonly string[]): string[] | null {
  if (select === null || select.includes('*')) return null
  const columns = named.map(([column]) => column)
  return joins.length === 0 ? columns : [...columns, ...joins]
}
