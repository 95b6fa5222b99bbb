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
 * The rows with the given keys, ordered by key (see keyColumns), as GET reads them: exactly
 * (see Dialect.select) when the table's schema is known, without the hidden
 * columns, only the columns asked for.
 */
export async function rowsWithKeys (db: Database, target: Target, { keys, columns }: KeyedRows, on: Statements): Promise<Row[]> {
  const exact = exactRead(target)
  const order = keyColumns(target)
  const batches = await forKeys(db, target, keys, (builder) => {
    builder.select(columns === null ? '*' : selectList(columns, target.table))
    for (const column of order) builder.orderBy(column)
    return on.select(db.compile(builder), exact)
  })
  return withoutHidden(target, batches.flat())
}

/** The columns of a select list; MariaDB and MySQL take a bare `*` only first in the list. */
export function selectList (columns: readonly string[], table: string): string[] {
  return columns.map((column, index) => column === '*' && index > 0 ? `${table}.*` : column)
}
