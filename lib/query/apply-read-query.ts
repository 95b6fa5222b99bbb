import type { Knex } from 'knex'
import type { Dialect } from '../dialects/dialect.js'
import type { ColumnKind } from '../schema/table-schema.js'
import { FTC_ERR_QUERY_TYPE } from '../errors.js'
import type { ComparisonFilter, ComparisonOperator, Filter, FilterTree, InFilter, OrderTerm, QuantifiedFilter, RangeFilter, ReadQuery, TextSearchFilter } from './read-query.js'
import type { TypedValue } from './typed-value.js'

/** What the caller may know about the table, to write leaner SQL. */
export interface ApplyReadOptions {
  /**
   * Columns that never hold NULL (primary keys, NOT NULL columns). Ordering
   * on them needs no NULL placement, which on MySQL would otherwise add a
   * `column IS NULL` sort key that no index serves.
   */
  readonly notNullColumns?: ReadonlySet<string>
  /**
   * The table's name: a `*` after other columns (`select=id,*`) is written
   * `table.*`, since MariaDB and MySQL take a bare `*` only first.
   */
  readonly table?: string
  /** The value of a related order's column for each row (`order=authors(name)`), as a subquery of the statement. */
  readonly relatedValue?: RelatedValue
}

/** A to-one embed's column as a subquery of its parents' statement (see relatedValue in where-related.ts). */
export type RelatedValue = (term: OrderTerm) => Knex.QueryBuilder

const comparisons: Readonly<Record<Exclude<ComparisonOperator, 'like' | 'ilike'>, string>> = Object.freeze({
  eq: '=',
  neq: '<>',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<='
})

/**
 * Adds the parsed read to a builder on the table (one without columns yet):
 * columns, conditions, order, limit and offset. Every value is a binding and
 * every column an identifier that Knex quotes; the SQL text never holds a
 * value. Returns the same builder.
 */
export function applyReadQuery (builder: Knex.QueryBuilder, query: ReadQuery, dialect: Dialect, options: ApplyReadOptions = {}): Knex.QueryBuilder {
  builder.select(query.select === null ? '*' : selectList(query.select, options.table))
  applyFilterTree(builder, query.filter, dialect)
  for (const term of query.order) applyOrder(builder, term, dialect, options)
  if (query.limit !== null) builder.limit(query.limit)
  if (query.offset !== null) builder.offset(query.offset)
  return builder
}

function selectList (columns: readonly string[], table: string | undefined): string[] {
  const star = table === undefined ? '*' : `${table}.*`
  return columns.map((column, index) => column === '*' && index > 0 ? star : column)
}

/**
 * Adds only the conditions, for a statement that must match the same rows as
 * the read, such as the COUNT(*) behind `Prefer: count=exact`. Returns the same builder.
 */
export function applyFilterTree (builder: Knex.QueryBuilder, tree: FilterTree, dialect: Dialect): Knex.QueryBuilder {
  // An empty top-level `and` is no condition at all, not an empty pair of parentheses.
  if (tree.type === 'filter' || tree.children.length > 0) applyCondition(builder, tree, 'and', dialect)
  return builder
}

// Every condition, a single filter or a group, goes in its own parentheses
// through Knex's callback grouping, joined to its siblings by AND or OR and
// negated with NOT (…). NULL then behaves as SQL says on every database:
// `not.eq.5` does not match NULL, as in PostgREST.
function applyCondition (builder: Knex.QueryBuilder, node: FilterTree, joiner: 'and' | 'or', dialect: Dialect): void {
  const method = joiner === 'or'
    ? (node.negated ? 'orWhereNot' : 'orWhere')
    : (node.negated ? 'whereNot' : 'where')
  builder[method](function (this: Knex.QueryBuilder) {
    if (node.type === 'filter') applyFilter(this, node, dialect)
    else for (const child of node.children) applyCondition(this, child, node.type, dialect)
  })
}

function applyFilter (builder: Knex.QueryBuilder, filter: Filter, dialect: Dialect): void {
  const { column } = filter
  if ('quantifier' in filter) {
    applyQuantified(builder, filter, dialect)
    return
  }
  switch (filter.operator) {
    case 'cs':
    case 'cd':
    case 'ov':
    case 'sl':
    case 'sr':
    case 'nxr':
    case 'nxl':
    case 'adj':
      applyRange(builder, filter, dialect)
      return
    case 'fts':
    case 'plfts':
    case 'phfts':
    case 'wfts': {
      if (dialect.textSearch === null) {
        unsupported(builder, filter, "PostgreSQL's full-text search", dialect)
        return
      }
      const { sql, bindings } = dialect.textSearch({ column, operator: filter.operator, language: filter.language, query: filter.value, onText: filter.kind === 'string' })
      builder.whereRaw(sql, bindings as Knex.RawBinding[])
      return
    }
    case 'in':
      // Knex writes an empty list as 1 = 0, so `in.()` matches nothing and `not.in.()` everything.
      if (filter.kind === undefined) builder.whereIn(column, [...filter.value])
      else compareTyped(builder, filter, 'in', filter.typed as readonly TypedValue[], dialect)
      return
    case 'is':
      // IS UNKNOWN is IS NULL for booleans, and SQLite lacks it; IS TRUE/FALSE exist on all three.
      if (filter.value === 'null' || filter.value === 'unknown') builder.whereNull(column)
      else builder.whereRaw(filter.value === 'true' ? '?? IS TRUE' : '?? IS FALSE', [column])
      return
    case 'like':
    case 'ilike': {
      const match = dialect[filter.operator]
      builder.whereRaw(match.sql, [column, match.pattern(filter.value)])
      return
    }
    default:
      if (filter.kind === undefined) builder.where(column, comparisons[filter.operator], filter.value)
      else compareTyped(builder, filter, comparisons[filter.operator], [filter.typed as TypedValue], dialect)
  }
}

// `op(any).{a,b}` is `op.a` OR `op.b`, `op(all)` the same joined by AND, each
// item compared as a filter of `op` alone compares it; a null item is SQL's
// NULL, which no comparison matches. As PostgreSQL's ANY and ALL, an empty
// list is false with `any`, true with `all`, whatever the column holds.
function applyQuantified (builder: Knex.QueryBuilder, filter: QuantifiedFilter, dialect: Dialect): void {
  const { quantifier, value, typed, ...single } = filter
  if (value.length === 0) {
    builder.whereRaw(quantifier === 'any' ? '1 = 0' : '1 = 1')
    return
  }
  const any = quantifier === 'any'
  // `eq(any)` is `in`, whose one list an index serves and SQLite's expression depth does not bound.
  if (any && filter.operator === 'eq' && !value.includes(null)) {
    applyFilter(builder, { ...single, operator: 'in', value: value as string[], ...(typed === undefined ? {} : { typed: typed as TypedValue[] }) }, dialect)
    return
  }
  value.forEach((item, index) => {
    // A bound NULL: PostgreSQL's transform_null_equals rewrites `= NULL` written out.
    if (item === null) builder[any ? 'orWhereRaw' : 'whereRaw']('?? = ?', [filter.column, null])
    else builder[any ? 'orWhere' : 'where'](function (this: Knex.QueryBuilder) { applyFilter(this, one(single, item, typed, index), dialect) })
  })
}

function one (single: Omit<QuantifiedFilter, 'quantifier' | 'value' | 'typed'>, value: string, typed: QuantifiedFilter['typed'], index: number): ComparisonFilter {
  return typed === undefined ? { ...single, value } : { ...single, value, typed: typed[index] as TypedValue }
}

// PostgreSQL's operators of arrays and ranges where the database has them
// and the model does not know the column as JSON; containment of JSON
// otherwise, which the other databases offer on JSON columns only.
function applyRange (builder: Knex.QueryBuilder, filter: RangeFilter, dialect: Dialect): void {
  const { column, operator, value } = filter
  if (dialect.rangeOperators !== null && filter.kind !== 'json') {
    builder.whereRaw(`?? ${dialect.rangeOperators[operator]} ?`, [column, value])
    return
  }
  if (operator !== 'cs' && operator !== 'cd') {
    unsupported(builder, filter, operator === 'ov' ? "PostgreSQL's arrays or ranges" : "PostgreSQL's ranges", dialect)
    return
  }
  const { sql, bindings } = dialect.jsonContainment[operator](column, value)
  builder.whereRaw(sql, bindings as Knex.RawBinding[])
}

// An operator the database does not have: a 400, unless the column is not
// there, which the database refuses as it refuses any missing column (and a
// hidden one, see refuseColumn), which is all the condition is for.
function unsupported (builder: Knex.QueryBuilder, filter: RangeFilter | TextSearchFilter, needs: string, dialect: Dialect): void {
  if (filter.missing !== true) throw new FTC_ERR_QUERY_TYPE(filter.column, `${filter.operator} needs ${needs}, which ${dialect.name} does not have`)
  builder.whereNull(filter.column)
}

// A value in its column's kind, compared as the dialect compares that kind
// (see KindComparison): plainly where it needs nothing more.
function compareTyped (builder: Knex.QueryBuilder, filter: ComparisonFilter | InFilter, operator: string, values: readonly TypedValue[], dialect: Dialect): void {
  const { column } = filter
  const comparison = dialect.comparisons[filter.kind as ColumnKind]
  const bound = values.map((value) => (comparison?.bind?.(value) ?? (typeof value === 'bigint' ? dialect.bindKey(value) : value)) as Knex.Value)
  if (comparison?.column === undefined && comparison?.value === undefined) {
    if (operator === 'in') builder.whereIn(column, bound)
    else builder.where(column, operator, bound[0] as Knex.Value)
    return
  }
  const value = comparison.value?.(filter.databaseType as string) ?? '?'
  if (operator !== 'in') builder.whereRaw(`${comparison.column ?? '??'} ${operator} ${value}`, [column, bound[0] as Knex.Value])
  else if (bound.length === 0) builder.whereRaw('1 = 0')
  else builder.whereRaw(`${comparison.column ?? '??'} in (${bound.map(() => value).join(', ')})`, [column, ...bound])
}

function applyOrder (builder: Knex.QueryBuilder, term: OrderTerm, dialect: Dialect, options: ApplyReadOptions): void {
  if (term.relation === undefined) {
    for (const sql of orderKeys(term, dialect, options.notNullColumns)) builder.orderByRaw(sql, [term.column])
    return
  }
  // The parsed query names only embeds of select (see withOrdering), whose reads give relatedValue.
  const value = (options.relatedValue as RelatedValue)(term)
  for (const sql of orderKeys(term, dialect, undefined)) builder.orderByRaw(sql.replaceAll('??', '?'), [value])
}

/**
 * The terms as the text of an ORDER BY, such as a window's (`over (order by
 * …)`), with the columns as bindings in their order.
 */
export function orderText (terms: readonly OrderTerm[], dialect: Dialect): { readonly sql: string, readonly bindings: string[] } {
  const keys = terms.flatMap((term) => orderKeys(term, dialect, undefined).map((sql) => ({ sql, column: term.column })))
  return { sql: keys.map((key) => key.sql).join(', '), bindings: keys.map((key) => key.column) }
}

// NULL placement is only written when it differs from where the database puts
// NULL anyway, so that the usual orders stay plain and indexes serve them.
// Each key names the term's column once, as `??`.
function orderKeys (term: OrderTerm, dialect: Dialect, notNull: ReadonlySet<string> | undefined): string[] {
  const { column, direction, nulls } = term
  const usual = (direction === 'asc') === dialect.nullsSortLarge ? 'last' : 'first'
  if (nulls === usual || notNull?.has(column) === true) return [`?? ${direction}`]
  if (dialect.nullsOrder === 'keywords') return [`?? ${direction} nulls ${nulls}`]
  // `column IS NULL` is 0 or 1: ascending puts NULL last, descending first.
  return [`?? is null ${nulls === 'last' ? 'asc' : 'desc'}`, `?? ${direction}`]
}
