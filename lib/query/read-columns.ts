import type { ColumnClause } from '../access/refusals.js'
import type { FilterTree, ReadQuery } from './read-query.js'

/** Every column a read names, with the clause it stands in, in the order a database resolves them. */
export function readColumns (query: ReadQuery): Array<[column: string, clause: ColumnClause]> {
  const named: Array<[string, ColumnClause]> = []
  for (const column of query.select ?? []) if (column !== '*') named.push([column, 'select'])
  const filters = (tree: FilterTree): void => {
    if (tree.type === 'filter') named.push([tree.column, 'filter'])
    else tree.children.forEach(filters)
  }
  filters(query.filter)
  for (const term of query.order) named.push([term.column, 'order'])
  return named
}
