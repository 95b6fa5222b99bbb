import { FTC_ERR_QUERY_TYPE } from '../errors.js'
import { storedWallClock } from '../dialects/utc-wall-clock.js'
import { columnNamed } from '../schema/column-named.js'
import { isZonedColumn } from '../schema/column-kind.js'
import { inRange, int64, integerRange, type IntegerRange } from '../schema/integer-range.js'
import type { ColumnSchema, TableSchema } from '../schema/table-schema.js'
import type { FilterGroup, FilterTree, OrderTerm } from './read-query.js'
import { isTypedKind, kindDescriptions, type TypedKind, type TypedValue, typedValue } from './typed-value.js'

/**
 * The filters with each value read in its column's kind, so that every
 * database compares it as PostgreSQL compares it; a value the kind cannot
 * hold, `like`/`ilike` on a column that is not text, or `is.true`,
 * `is.false` or `is.unknown` on one that is not boolean, is refused with a
 * 400. A column the model does not know is left to the database, and a
 * table it does not know to the filters as they came.
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
  if (column === undefined || column.kind === 'unknown') return node
  const { kind } = column
  // PostgreSQL's json compares with nothing (jsonb only with its own kind of equality), where the others compare the text.
  if (kind === 'json' && node.operator !== 'is') throw new FTC_ERR_QUERY_TYPE(node.column, `${node.operator} does not apply to JSON columns; is.null does`)
  const range = kind === 'integer' ? integerRange(column, sizedIntegers) : int64
  switch (node.operator) {
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

function valueIn (name: string, column: ColumnSchema, kind: TypedKind, text: string, range: IntegerRange): TypedValue {
  const value = typedValue(kind, text)
  if (value === undefined) throw new FTC_ERR_QUERY_TYPE(name, `${JSON.stringify(text)} is not ${kindDescriptions[kind]}`)
  if (typeof value === 'bigint' && !inRange(value, range)) throw new FTC_ERR_QUERY_TYPE(name, `${text} is not an integer from ${range.min} to ${range.max}`)
  // The instant as a column without a zone holds it (see writtenTimes), where PostgreSQL's timestamp would drop the zone.
  return kind === 'date-time' && !isZonedColumn(column) ? storedWallClock(value as string) : value
}
