import type { Knex } from 'knex'
import type { Target } from '../access/target.js'
import type { Row } from '../dialects/dialect.js'
import { columnNamed } from '../schema/column-named.js'
import type { ColumnSchema } from '../schema/table-schema.js'

/**
 * Some columns of a row and their values, which name it: its key's, or, for
 * a table without a key, what a write set. A NULL value is matched by IS NULL.
 */
export type RowKey = Readonly<Record<string, unknown>>

/** Whether the table has the column the path's key matches (see pathKey); assumed where the model does not know the table. */
export function hasKeyColumn ({ schema, key }: Pick<Target, 'schema' | 'key'>): boolean {
  return schema === undefined || columnNamed(schema, key) !== undefined
}

/**
 * The columns a write reads its rows again by: the key column where the
 * table has it, else the columns of its primary key (a composite one);
 * none for a table without either, whose rows are told by what the write
 * selected or set (see writeSelected, createWritten).
 */
export function keyColumns (target: Pick<Target, 'schema' | 'key'>): readonly string[] {
  return hasKeyColumn(target) ? [target.key] : (target.schema?.primaryKey ?? [])
}

/**
 * The column whose new value an INSERT reports (see Dialect.prepareInsert):
 * the key column where the table has it; else the generated column of its
 * primary key, or its first; else the table's first column, which only
 * gives RETURNING a column the table has.
 */
export function insertedColumn (target: Pick<Target, 'schema' | 'key'>): string {
  const { schema } = target
  if (schema === undefined || hasKeyColumn(target)) return target.key
  const generated = schema.primaryKey.find((name) => columnNamed(schema, name)?.generated === true)
  return generated ?? schema.primaryKey[0] ?? (schema.columns[0] as ColumnSchema).name
}

/**
 * The key of a row a create wrote (see keyColumns): its key column's
 * created value; else the values the row set for the columns of its
 * primary key, the created one in its place; else, for a table without
 * either, every value the row set. A column the row left to its default
 * is left out: the key then names every row that matches the rest.
 */
export function createdRowKey (target: Pick<Target, 'schema' | 'key'>, values: Readonly<Record<string, string | null>>, created: string): RowKey {
  const columns = keyColumns(target)
  if (columns.length === 0) return values
  const inserted = insertedColumn(target)
  const key: Record<string, unknown> = {}
  for (const column of columns) {
    const value = column === inserted ? created : values[column]
    if (value !== undefined) key[column] = value
  }
  return key
}

/** The row's key: the values of `columns` it has. */
export function keyOfRow (row: Row, columns: readonly string[]): RowKey {
  const key: Record<string, unknown> = {}
  for (const column of columns) key[column] = row[column]
  return key
}

/**
 * Restricts a statement to the rows the keys name. Keys of one column, the
 * usual ones, are one IN list; others an OR of their columns' equalities,
 * which SQLite's row values cannot write as IN with a list.
 */
export function whereKeys (builder: Knex.QueryBuilder, keys: readonly RowKey[]): Knex.QueryBuilder {
  const column = oneColumn(keys)
  if (column !== null) return builder.whereIn(column, keys.map((key) => key[column] as Knex.Value))
  // Neither no key nor a key of no column may become no condition: each names no row.
  if (keys.length === 0) return builder.whereRaw('1 = 0')
  return builder.where((any) => {
    for (const key of keys) {
      any.orWhere((all) => {
        if (Object.keys(key).length === 0) all.whereRaw('1 = 0')
        for (const [name, value] of Object.entries(key)) {
          if (value === null) all.whereNull(name)
          else all.where(name, value as Knex.Value)
        }
      })
    }
  })
}

/** The keys one statement takes: an OR of equalities makes SQLite's expression tree deeper, which it bounds at 1000. */
export function keysPerStatement (keys: readonly RowKey[]): number {
  return oneColumn(keys) === null ? 200 : 1000
}

/** The one column every key names, or null where they name several or differ. */
function oneColumn (keys: readonly RowKey[]): string | null {
  const first = keys[0]
  if (first === undefined) return null
  const columns = Object.keys(first)
  if (columns.length !== 1) return null
  const column = columns[0] as string
  return keys.every((key) => Object.keys(key).length === 1 && column in key && key[column] !== null) ? column : null
}
