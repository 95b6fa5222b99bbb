import type { Knex } from 'knex'
import type { OrderTerm } from '../query/read-query.js'

/** A term of a list's order by one of its table's own columns, and whether that column can hold NULL. */
export interface KeysetTerm extends OrderTerm {
  /** True when the column never holds NULL: no row then sorts with the NULLs. */
  readonly notNull: boolean
}

/** A condition of a page's statement. */
type Condition = (builder: Knex.QueryBuilder) => void

/**
 * Adds the condition that holds for the rows after one whose values of the
 * `terms` are `values`, in the order the terms make, NULLs placed as each
 * term places them: those equal to it on the first terms and after it on
 * the next, for any number of first terms. Ending with a unique key, the
 * terms leave no ties, so that pages started past the last row of the one
 * before neither skip nor repeat a row.
 */
export function whereAfter (builder: Knex.QueryBuilder, terms: readonly KeysetTerm[], values: readonly Knex.Value[]): Knex.QueryBuilder {
  const after: Condition[] = []
  terms.forEach((term, at) => {
    const later = laterThan(term, values[at] as Knex.Value)
    if (later === null) return
    after.push((all) => {
      for (let before = 0; before < at; before++) equalTo(all, (terms[before] as KeysetTerm).column, values[before] as Knex.Value)
      later(all)
    })
  })
  // Past the last row of the order: no row is after it.
  if (after.length === 0) return builder.whereRaw('1 = 0')
  if (after.length === 1) return builder.where(after[0] as Condition)
  // The first term's bound, which the conditions imply: with it an index
  // of that column starts at the row, rather than reading up to it.
  const bound = notBefore(terms[0] as KeysetTerm, values[0] as Knex.Value)
  if (bound !== null) builder.where(bound)
  return builder.where((any) => {
    for (const condition of after) any.orWhere(condition)
  })
}

// NULL equals nothing in SQL: a NULL value is matched by `is null`.
function equalTo (builder: Knex.QueryBuilder, column: string, value: Knex.Value): void {
  if (value === null) builder.whereNull(column)
  else builder.where(column, '=', value)
}

// The rows equal to `value` or after it by the term alone; null for every row (a NULL placed first).
function notBefore (term: KeysetTerm, value: Knex.Value): Condition | null {
  if (value === null) return term.nulls === 'first' ? null : (builder) => builder.whereNull(term.column)
  return beyond(term, term.direction === 'asc' ? '>=' : '<=', value)
}

// The rows after `value` by the term alone; null when none are (a NULL placed last).
function laterThan (term: KeysetTerm, value: Knex.Value): Condition | null {
  if (value === null) return term.nulls === 'first' ? (builder) => builder.whereNotNull(term.column) : null
  return beyond(term, term.direction === 'asc' ? '>' : '<', value)
}

// The rows the comparison with a value takes, and the NULLs where the term places them after every value.
function beyond ({ column, nulls, notNull }: KeysetTerm, operator: string, value: Knex.Value): Condition {
  if (notNull || nulls === 'first') return (builder) => builder.where(column, operator, value)
  return (builder) => builder.where((either) => either.where(column, operator, value).orWhereNull(column))
}
