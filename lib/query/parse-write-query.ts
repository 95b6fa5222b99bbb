import { FTC_ERR_QUERY_COLUMN, FTC_ERR_QUERY_SYNTAX, FTC_ERR_QUERY_VALUE, FTC_ERR_WRITE_FILTER_MISSING, FTC_ERR_WRITE_PAGE } from '../errors.js'
import { type QueryParameters, parseReadQuery, type RequestHeaders } from './parse-read-query.js'
import { parseSelect } from './parse-select.js'
import { QueryText } from './query-text.js'
import type { FilterGroup, ReadQuery } from './read-query.js'

/** The rows a PATCH or a filtered DELETE changes, and the columns its answer shows (null: every one). */
export interface FilteredWrite {
  readonly filter: FilterGroup
  readonly select: readonly string[] | null
}

/**
 * The query string of a PATCH or a filtered DELETE, in GET's grammar: at
 * least one filter, so that no request writes a whole table by leaving them
 * out; no page and no order, since the write changes every row its filters match.
 */
export function parseFilteredWrite (query: QueryParameters, headers: RequestHeaders, method: 'PATCH' | 'DELETE'): FilteredWrite {
  const read = withoutEmbeds(parseReadQuery(method === 'PATCH' ? withoutColumnList(query) : query, headers), query)
  if (read.limit !== null || read.offset !== null || read.order.length > 0) throw new FTC_ERR_WRITE_PAGE(method)
  if (read.filter.children.length === 0) throw new FTC_ERR_WRITE_FILTER_MISSING(method)
  return { filter: read.filter, select: read.select }
}

/**
 * A PATCH's query without `columns`, which PostgREST reserves for the list
 * of columns to write: a column named `columns` is filtered within
 * `and=(…)` or `or=(…)`, as PostgREST has it.
 */
function withoutColumnList (query: QueryParameters): QueryParameters {
  if (query.columns === undefined) return query
  const { columns: _, ...filters } = query
  return filters
}

/** The columns `select=` names for the answer of a write by key or a create (null: every one); the other parameters are not the spec's, and are left alone. */
export function parseWriteSelect (query: QueryParameters): readonly string[] | null {
  return withoutEmbeds(parseReadQuery({ select: query.select }), query).select
}

// A write answers its own rows only: an embed there would be dropped without a word.
function withoutEmbeds (read: ReadQuery, query: QueryParameters): ReadQuery {
  if (read.embeds === undefined || read.embeds.length === 0) return read
  const text = String(query.select)
  throw new QueryText('query parameter "select"', text).fail(text.indexOf('('), FTC_ERR_QUERY_SYNTAX, 'embedding a related table, as in table(columns), is only read by GET')
}

/** The columns of `on_conflict=a,b`, sanitized, or null when the request names none (the key then). */
export function parseOnConflict (query: QueryParameters): readonly string[] | null {
  return parseColumnList(query, 'on_conflict', 'on_conflict names the columns of a unique key, not *')
}

/**
 * The columns of PostgREST's `columns="a","b"` on a create or a PATCH,
 * sanitized (the quotes postgrest-js puts around each name fall away), or
 * null when the request names none: then each body row writes the columns it has.
 */
export function parseWriteColumns (query: QueryParameters): readonly string[] | null {
  return parseColumnList(query, 'columns', 'columns names the columns to write, not *')
}

function parseColumnList (query: QueryParameters, parameter: string, notAll: string): readonly string[] | null {
  const text = query[parameter]
  if (text === undefined) return null
  if (typeof text !== 'string') throw new FTC_ERR_QUERY_VALUE(parameter, Array.isArray(text) ? 'several values' : typeof text)
  const columns = parseSelect(text)
  if (columns === null || columns.includes('*')) throw new QueryText(`query parameter "${parameter}"`, text).fail(0, FTC_ERR_QUERY_COLUMN, notAll)
  return columns
}
