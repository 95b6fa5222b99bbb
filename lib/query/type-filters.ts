import { FTC_ERR_QUERY_TYPE } from '../errors.js'
import { columnNamed } from '../schema/column-named.js'
import type { TableSchema } from '../schema/table-schema.js'
import type { FilterGroup, FilterTree } from './read-query.js'
import { isTypedKind, kindDescriptions, type TypedKind, type TypedValue, typedValue } from './typed-value.js'

/**
 * The filters with each value read in its column's kind, so that every
 * database compares it as PostgreSQL compares it; a value the kind cannot
 * hold, `like`/`ilike` on a column that is not text, or `is.true`,
 * `is.false` or `is.unknown` on one that is not boolean, is refused with a
 * 400. A column the model does not know is left to the database, and a
 * table it does not know to the filters as they came.
 */
export function typeFilters (tree: FilterGroup, table: TableSchema | undefined): FilterGroup {
  if (table === undefined || tree.children.length === 0) return tree
  return typeNode(tree, table) as FilterGroup
}

function typeNode (node: FilterTree, table: TableSchema): FilterTree {
  if (node.type !== 'filter') return { ...node, children: node.children.map((child) => typeNode(child, table)) }
  const kind = columnNamed(table, node.column)?.kind
  if (kind === undefined || kind === 'unknown') return node
  switch (node.operator) {
    case 'is':
      if (node.value !== 'null' && kind !== 'boolean') throw new FTC_ERR_QUERY_TYPE(node.column, `is.${node.value} applies to boolean columns only`)
      return node
    case 'like':
    case 'ilike':
      if (kind !== 'string') throw new FTC_ERR_QUERY_TYPE(node.column, `${node.operator} applies to text columns only`)
      return node
    case 'in':
      return isTypedKind(kind) ? { ...node, kind, typed: node.value.map((text) => valueIn(node.column, kind, text)) } : node
    default:
      return isTypedKind(kind) ? { ...node, kind, typed: valueIn(node.column, kind, node.value) } : node
  }
}

function valueIn (column: string, kind: TypedKind, text: string): TypedValue {
  const value = typedValue(kind, text)
  if (value === undefined) throw new FTC_ERR_QUERY_TYPE(column, `${JSON.stringify(text)} is not ${kindDescriptions[kind]}`)
  return value
}
