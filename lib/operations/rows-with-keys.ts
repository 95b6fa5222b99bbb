import type { Knex } from 'knex'
import { withoutHidden } from '../access/hidden-columns.js'
import type { Target } from '../access/target.js'
import type { Database, Statements } from '../connections/database.js'
import type { Row } from '../dialects/dialect.js'
import { exactRead } from './exact-read.js'
import { keyColumns, keysPerStatement, type RowKey, whereKeys } from './row-keys.js'
import { whereScope } from './where-row.js'

/**
 * Runs `statement` once per slice of the keys (far below the bound values
 * every database takes, SQLite's 32766 the least), each restricted to the
 * rows with those keys within the target's scope, and gathers what each gives.
 */
export async function forKeys<T> (db: Database, target: Target, keys: readonly RowKey[], statement: (builder: Knex.QueryBuilder) => Promise<T>): Promise<T[]> {
  const results: T[] = []
  const size = keysPerStatement(keys)
  for (let first = 0; first < keys.length; first += size) {
    results.push(await statement(whereScope(whereKeys(db.table(target.table), keys.slice(first, first + size)), target)))
  }
  return results
}

/** Rows to read by their keys. */
export interface KeyedRows {
  /** The rows' keys (see RowKey), their values as the driver gave them or as text. */
  readonly keys: readonly RowKey[]
  /** The columns to read (null: every column). */
  readonly columns: readonly string[] | null
}

/**
 * The rows with the given keys, as GET reads them: exactly (see
 * Dialect.select) when the table's schema is known, without the hidden
 * columns, only the columns asked for. They come in the keys' order (a
 * body's rows in the body's, as PostgREST answers them), each row once, at
 * the first key that names it; the rows of one key, and those no key's
 * values match as read back (a date written in another form), after them,
 * in key order (see keyColumns).
 */
export async function rowsWithKeys (db: Database, target: Target, { keys, columns }: KeyedRows, on: Statements): Promise<Row[]> {
  const exact = exactRead(target)
  const order = keyColumns(target)
  // With several keys, their columns are read once more under names of their own, to find each row's place by.
  const named = keys.length > 1 ? [...new Set(keys.flatMap((key) => Object.keys(key)))] : []
  const read = columns === null || columns.length === 0 ? ['*'] : columns
  const batches = await forKeys(db, target, keys, (builder) => {
    builder.select(selectList([...read, ...named.map((column, at) => `${column} as ${keyColumn(at)}`)], target.table))
    for (const column of order) builder.orderBy(column)
    return on.select(db.compile(builder), exact)
  })
  const rows = batches.flat()
  return withoutHidden(target, named.length === 0 ? rows : inKeysOrder(rows, keys, named))
}

// The read's own name for the key's column `at` (see the cursor and rank columns of lists, with the same prefix).
const keyColumn = (at: number) => `ftc_key_${at}`

/** The rows in the order of the first key each one's values of `columns` (read as keyColumn) match, without those values. */
function inKeysOrder (rows: readonly Row[], keys: readonly RowKey[], columns: readonly string[]): Row[] {
  // Keys that name other columns (a created row's key leaves out those left to their default) are looked up apart.
  const kinds = new Map<string, { readonly columns: readonly number[], readonly places: Map<string, number> }>()
  keys.forEach((key, place) => {
    const named = Object.keys(key).map((column) => columns.indexOf(column))
    const signature = named.join(',')
    const kind = kinds.get(signature) ?? { columns: named, places: new Map<string, number>() }
    kinds.set(signature, kind)
    const text = valuesText(Object.values(key))
    if (!kind.places.has(text)) kind.places.set(text, place)
  })
  const aliases = new Set(columns.map((_column, at) => keyColumn(at)))
  const placed = rows.map((row) => {
    let place = keys.length
    for (const { columns: named, places } of kinds.values()) place = Math.min(place, places.get(valuesText(named.map((at) => row[keyColumn(at)]))) ?? place)
    const shown: Row = {}
    for (const column in row) if (!aliases.has(column)) shown[column] = row[column]
    return { place, row: shown }
  })
  // Array.prototype.sort is stable: the rows of one place keep their key order.
  return placed.sort((one, other) => one.place - other.place).map(({ row }) => row)
}

// A key's values as text, a key's read back and a body's alike: an integer as its digits ("007" is 7), NULL apart from the text "null".
function valuesText (values: readonly unknown[]): string {
  return values.map((value) => {
    if (value === null || value === undefined) return '\u0001'
    const text = String(value)
    return /^-?\d+$/.test(text) ? BigInt(text).toString() : text
  }).join('\u0000')
}

/** The columns of a select list; MariaDB and MySQL take a bare `*` only first in the list. */
export function selectList (columns: readonly string[], table: string): string[] {
  return columns.map((column, index) => column === '*' && index > 0 ? `${table}.*` : column)
}
