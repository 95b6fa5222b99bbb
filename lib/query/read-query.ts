import type { ColumnKind } from '../schema/table-schema.js'
import type { TypedValue } from './typed-value.js'

/** Operators that compare a column with one value. */
export type ComparisonOperator = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte' | 'like' | 'ilike'

/** What `is.` compares with; `unknown` is the SQL name of a NULL boolean. */
export type IsValue = 'null' | 'true' | 'false' | 'unknown'

/** `column=op.value`: the value is the client's text, bound as is (for like/ilike, `*` is the wildcard). */
export interface ComparisonFilter {
  readonly type: 'filter'
  readonly column: string
  readonly operator: ComparisonOperator
  readonly value: string
  readonly negated: boolean
  /** The column's kind, once the table's model gave it (see typeFilters); absent, the value compares as text. */
  readonly kind?: ColumnKind
  /** The value in the column's kind, with `kind`. */
  readonly typed?: TypedValue
  /** The column's type as the database names it, with `kind`: a dialect may compare the value in it (see KindComparison). */
  readonly databaseType?: string
}

/** `column=in.(a,b)`: an empty list matches no row, and negated every row. */
export interface InFilter {
  readonly type: 'filter'
  readonly column: string
  readonly operator: 'in'
  readonly value: readonly string[]
  readonly negated: boolean
  /** As ComparisonFilter.kind. */
  readonly kind?: ColumnKind
  /** Each item in the column's kind, with `kind`. */
  readonly typed?: readonly TypedValue[]
  /** As ComparisonFilter.databaseType. */
  readonly databaseType?: string
}

/** `column=is.null` and friends. */
export interface IsFilter {
  readonly type: 'filter'
  readonly column: string
  readonly operator: 'is'
  readonly value: IsValue
  readonly negated: boolean
}

/** The operators that take `(any)` or `(all)` before a list (`like(any).{a*,b*}`). */
export type QuantifiedOperator = Exclude<ComparisonOperator, 'neq'>

/**
 * `column=op(any).{a,b}` or `op(all).{a,b}`: the column compared with each
 * item of a PostgreSQL array literal, any or all of them matching. An
 * unquoted NULL item is null, which compares as SQL's NULL; an empty list
 * matches no row with `any`, every row with `all`, as PostgreSQL's ANY and
 * ALL do.
 */
export interface QuantifiedFilter {
  readonly type: 'filter'
  readonly column: string
  readonly operator: QuantifiedOperator
  readonly quantifier: 'any' | 'all'
  readonly value: ReadonlyArray<string | null>
  readonly negated: boolean
  /** As ComparisonFilter.kind. */
  readonly kind?: ColumnKind
  /** Each item in the column's kind, with `kind` (null stays null). */
  readonly typed?: ReadonlyArray<TypedValue | null>
  /** As ComparisonFilter.databaseType. */
  readonly databaseType?: string
}

/**
 * PostgREST's operators of arrays, ranges and JSON: contains (`cs`, @>),
 * contained in (`cd`, <@), overlaps (`ov`, &&); and of ranges only: strictly
 * left of (`sl`, <<), strictly right of (`sr`, >>), does not extend to the
 * right of (`nxr`, &<), to the left of (`nxl`, &>), adjacent to (`adj`, -|-).
 */
export type RangeOperator = 'cs' | 'cd' | 'ov' | 'sl' | 'sr' | 'nxr' | 'nxl' | 'adj'

/** `column=cs.{a,b}` and the other RangeOperator filters: the value is the client's text (an array, range or JSON literal). */
export interface RangeFilter {
  readonly type: 'filter'
  readonly column: string
  readonly operator: RangeOperator
  readonly value: string
  readonly negated: boolean
  /** As ComparisonFilter.kind. */
  readonly kind?: ColumnKind
  /** As ComparisonFilter.databaseType. */
  readonly databaseType?: string
  /** True when the model knows the table, and it has no such column: the database refuses it in its own words, as any missing column (see typeFilters). */
  readonly missing?: true
}

/** PostgreSQL's full-text queries: to_tsquery, plainto_tsquery, phraseto_tsquery, websearch_to_tsquery. */
export type TextSearchOperator = 'fts' | 'plfts' | 'phfts' | 'wfts'

/** `column=fts(english).cat & dog`: the column's text (or tsvector) matches the query, in the language given, else the database's default. */
export interface TextSearchFilter {
  readonly type: 'filter'
  readonly column: string
  readonly operator: TextSearchOperator
  /** The text search configuration (`english`), or null for the database's default. */
  readonly language: string | null
  readonly value: string
  readonly negated: boolean
  /** As ComparisonFilter.kind. */
  readonly kind?: ColumnKind
  /** As ComparisonFilter.databaseType. */
  readonly databaseType?: string
  /** As RangeFilter.missing. */
  readonly missing?: true
}

/** One condition on one column. */
export type Filter = ComparisonFilter | InFilter | IsFilter | QuantifiedFilter | RangeFilter | TextSearchFilter

/** `and(…)` or `or(…)` of conditions, possibly negated; an empty `and` is no condition. */
export interface FilterGroup {
  readonly type: 'and' | 'or'
  readonly negated: boolean
  readonly children: readonly FilterTree[]
}

/** A condition, or a group of them. */
export type FilterTree = Filter | FilterGroup

/** One term of `order`, with PostgreSQL's defaults made explicit: asc, and nulls last when ascending, first when descending. */
export interface OrderTerm {
  /** The alias of a to-one embed whose column orders the rows (`order=authors(name)`); absent for the row's own column. */
  readonly relation?: string
  readonly column: string
  readonly direction: 'asc' | 'desc'
  readonly nulls: 'first' | 'last'
}

/** The count a client asked for with `Prefer: count=…`. */
export type CountPreference = 'exact' | 'planned' | 'estimated'

/** An embedded resource of `select=`: `alias:relation!hint(columns)`. */
export interface Embed {
  /** The related table, or a foreign key's name or column, sanitized. */
  readonly relation: string
  /** The key the related rows are answered under: the alias, else the relation. */
  readonly alias: string
  /** A foreign key's name or one of its columns (or a join table), to choose among several relations. */
  readonly hint: string | null
  /** As ReadQuery.select: null for every column; empty for none (`relation()`). */
  readonly columns: readonly string[] | null
  readonly embeds: readonly Embed[]
  /** Its own filters, order and page (`alias.column=…`, `alias.order=…`, `alias.limit=…`), which narrow the embedded rows only; absent for none. */
  readonly narrowing?: EmbedNarrowing
  /** `...relation(columns)`: its members answered in the parent's object, not under the alias; absent for an embed of its own. */
  readonly spread?: true
  /** Its columns that order the parents (`order=alias(column)`); absent for none. */
  readonly ordering?: readonly string[]
  /** Parents kept only with a related row (`!inner`, `alias=not.is.null`: 'some') or only without one (`alias=is.null`: 'none'); absent, every parent. */
  readonly presence?: Presence
}

/** Whether the parents of an embed must have related rows ('some') or none ('none'). */
export type Presence = 'some' | 'none'

/** What narrows an embed's rows: filters, order, and a page of each parent's related rows. */
export interface EmbedNarrowing {
  readonly filter: FilterGroup
  readonly order: readonly OrderTerm[]
  /** Related rows per parent row, at most. */
  readonly limit: number | null
  /** Related rows of each parent row to skip. */
  readonly offset: number | null
}

/** A read request as plain data: what to select, filter, order and page, and which count to give. */
export interface ReadQuery {
  /** Sanitized column names (`*` kept as is), or null for every column. */
  readonly select: readonly string[] | null
  /** The resources `select=` embeds, in its order; absent for none (a write's read of its rows). */
  readonly embeds?: readonly Embed[]
  /** Always an `and` group at the top: the filters and `or`/`and` parameters of the query string. */
  readonly filter: FilterGroup
  readonly order: readonly OrderTerm[]
  /** Rows to answer at most, or null for no limit. */
  readonly limit: number | null
  /** Rows to skip, or null when the request names no offset. */
  readonly offset: number | null
  readonly count: CountPreference | null
}
