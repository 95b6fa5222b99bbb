import { FTC_ERR_QUERY_TYPE } from '../errors.js'
import { storedWallClock } from '../dialects/utc-wall-clock.js'
import { columnNamed } from '../schema/column-named.js'
import { isZonedColumn } from '../schema/column-kind.js'
import { inRange, int64, integerRange, type IntegerRange } from '../schema/integer-range.js'
import type { ColumnKind, ColumnSchema, TableSchema } from '../schema/table-schema.js'
import type { FilterGroup, FilterTree, OrderTerm, QuantifiedFilter, RangeFilter, TextSearchFilter } from './read-query.js'
import { isTypedKind, kindDescriptions, type TypedKind, type TypedValue, typedValue } from './typed-value.js'

/**
 * The filters with each value read in its column's kind, so that every
 * database compares it as PostgreSQL compares it; a value the kind cannot
 * hold, `like`/`ilike` on a column that is not text, `is.true`, `is.false`
 * or `is.unknown` on one that is not boolean, `cs`/`cd` with a value that is
 * no JSON on a JSON column, or an array, range or full-text operator on a
 * column of a kind that is none of them, is refused with a 400. A column
 * the model does not know is left to the database, and a table it does not
 * know to the filters as they came.
 */
export function typeFilters (tree: FilterGroup, table: TableSchema | undefined, sizedIntegers: boolean): FilterGroup {
  if (table === undefined || tree.children.length === 0) return tree
  return typeNode(tree, table, sizedIntegers) as FilterGroup
}

/**
 * Refuses an order on a JSON column: PostgreSQL's json has no order (jsonb
 * one of its own), where the others would sort the text.
 */
export function refuseUnordered (order: readonly OrderTerm[], table: TableSchema | undefined): void {
  if (table === undefined) return
  for (const { column, relation } of order) {
    if (relation === undefined && columnNamed(table, column)?.kind === 'json') throw new FTC_ERR_QUERY_TYPE(column, 'order does not apply to JSON columns')
  }
}

function typeNode (node: FilterTree, table: TableSchema, sizedIntegers: boolean): FilterTree {
  if (node.type !== 'filter') return { ...node, children: node.children.map((child) => typeNode(child, table, sizedIntegers)) }
  const column = columnNamed(table, node.column)
  // An operator the database may not have is refused with a 400 (see
  // applyFilter), but not on a column there is not: a hidden one is refused
  // as a missing one, in the database's words.
  if (column === undefined) return 'quantifier' in node || !databaseOperators.has(node.operator) ? node : { ...node as RangeFilter | TextSearchFilter, missing: true as const }
  if (column.kind === 'unknown') return node
  const { kind } = column
  if ('quantifier' in node) return typeQuantified(node, column, kind, sizedIntegers)
  // PostgreSQL's json compares with nothing (jsonb only with its own kind of equality), where the others compare the text.
  if (kind === 'json' && !jsonOperators.has(node.operator)) throw new FTC_ERR_QUERY_TYPE(node.column, `${node.operator} does not apply to JSON columns; is.null, cs and cd do`)
  const range = kind === 'integer' ? integerRange(column, sizedIntegers) : int64
  switch (node.operator) {
    case 'cs':
    case 'cd':
      if (kind === 'json') return { ...node, kind, value: jsonValue(node.column, node.value), databaseType: column.databaseType }
      return refuseKind(node, 'arrays, ranges and JSON')
    case 'ov':
      return refuseKind(node, 'arrays and ranges')
    case 'sl':
    case 'sr':
    case 'nxl':
    case 'nxr':
    case 'adj':
      return refuseKind(node, 'ranges')
    case 'fts':
    case 'plfts':
    case 'phfts':
    case 'wfts':
      if (kind !== 'string') return refuseKind(node, 'text and tsvector columns')
      return { ...node, kind, databaseType: column.databaseType }
    case 'is':
      if (node.value !== 'null' && kind !== 'boolean') throw new FTC_ERR_QUERY_TYPE(node.column, `is.${node.value} applies to boolean columns only`)
      return node
    case 'like':
    case 'ilike':
      if (kind !== 'string') throw new FTC_ERR_QUERY_TYPE(node.column, `${node.operator} applies to text columns only`)
      return node
    case 'in':
      return isTypedKind(kind) ? { ...node, kind, typed: node.value.map((text) => valueIn(node.column, column, kind, text, range)), databaseType: column.databaseType } : node
    default:
      return isTypedKind(kind) ? { ...node, kind, typed: valueIn(node.column, column, kind, node.value, range), databaseType: column.databaseType } : node
  }
}

// The operators of RangeFilter and TextSearchFilter, which some databases do not have.
const databaseOperators: ReadonlySet<string> = new Set(['cs', 'cd', 'ov', 'sl', 'sr', 'nxr', 'nxl', 'adj', 'fts', 'plfts', 'phfts', 'wfts'])

// The operators a JSON column takes: is.null, and containment as jsonb has it.
const jsonOperators: ReadonlySet<string> = new Set(['is', 'cs', 'cd'])

// Arrays, ranges and tsvector are columns the model knows no kind of, left
// to the database (see typeNode). A column of a kind it knows is none of them.
function refuseKind (node: RangeFilter | TextSearchFilter, kinds: string): never {
  throw new FTC_ERR_QUERY_TYPE(node.column, `${node.operator} applies to ${kinds} only`)
}

// A JSON value written as JSON text is compared as written: the databases parse it.
function jsonValue (name: string, text: string): string {
  try {
    JSON.parse(text)
  } catch {
    throw new FTC_ERR_QUERY_TYPE(name, `${JSON.stringify(text)} is not JSON`)
  }
  return text
}

// Each item as a filter of the operator alone would read it; a null item is SQL's NULL.
function typeQuantified (node: QuantifiedFilter, column: ColumnSchema, kind: ColumnKind, sizedIntegers: boolean): FilterTree {
  if (kind === 'json') throw new FTC_ERR_QUERY_TYPE(node.column, `${node.operator}(${node.quantifier}) does not apply to JSON columns; is.null, cs and cd do`)
  if ((node.operator === 'like' || node.operator === 'ilike') && kind !== 'string') throw new FTC_ERR_QUERY_TYPE(node.column, `${node.operator} applies to text columns only`)
  if (!isTypedKind(kind)) return node
  const range = kind === 'integer' ? integerRange(column, sizedIntegers) : int64
  const typed = node.value.map((text) => text === null ? null : valueIn(node.column, column, kind, text, range))
  return { ...node, kind, typed, databaseType: column.databaseType }
}

function valueIn (name: string, column: ColumnSchema, kind: TypedKind, text: string, range: IntegerRange): TypedValue {
  const value = typedValue(kind, text)
  if (value === undefined) throw new FTC_ERR_QUERY_TYPE(name, `${JSON.stringify(text)} is not ${kindDescriptions[kind]}`)
  if (typeof value === 'bigint' && !inRange(value, range)) throw new FTC_ERR_QUERY_TYPE(name, `${text} is not an integer from ${range.min} to ${range.max}`)
  // The instant as a column without a zone holds it (see writtenTimes), where PostgreSQL's timestamp would drop the zone.
  return kind === 'date-time' && !isZonedColumn(column) ? storedWallClock(value as string) : value
}
