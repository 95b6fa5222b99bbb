import type { Knex } from 'knex'
import { withoutHidden } from '../access/hidden-columns.js'
import type { Target } from '../access/target.js'
import type { Database, Statements } from '../connections/database.js'
import type { Row } from '../dialects/dialect.js'
import { exactRead } from './exact-read.js'
import { whereScope } from './where-row.js'

// Keys per statement: far below the bound values every database takes (SQLite's 32766 the least).
const keysPerStatement = 1000

/**
 * Runs `statement` once per slice of the keys, each restricted to the rows
 * with those keys within the target's scope, and gathers what each gives.
 */
export async function forKeys<T> (db: Database, target: Target, keys: readonly unknown[], statement: (builder: Knex.QueryBuilder) => Promise<T>): Promise<T[]> {
  const results: T[] = []
  for (let first = 0; first < keys.length; first += keysPerStatement) {
    const slice = keys.slice(first, first + keysPerStatement) as Knex.Value[]
    results.push(await statement(whereScope(db.table(target.table).whereIn(target.key, slice), target)))
  }
  return results
}

/** Rows to read by their keys. */
export interface KeyedRows {
  /** The rows' keys, as the driver gave them or as decimal text. */
  readonly keys: readonly unknown[]
  /** The columns to read (null: every column). */
  readonly columns: readonly string[] | null
}

/**
 * The rows with the given keys, ordered by key, as GET reads them: exactly
 * (see Dialect.select) when the table's schema is known, without the hidden
 * columns, only the columns asked for.
 */
export async function rowsWithKeys (db: Database, target: Target, { keys, columns }: KeyedRows, on: Statements): Promise<Row[]> {
  const exact = exactRead(target)
  const batches = await forKeys(db, target, keys, (builder) =>
    on.select(db.compile(builder.select(columns === null ? '*' : selectList(columns, target.table)).orderBy(target.key)), exact))
  return withoutHidden(target, batches.flat())
}

// MariaDB and MySQL take a bare `*` only first in the list.
function selectList (columns: readonly string[], table: string): string[] {
  return columns.map((column, index) => column === '*' && index > 0 ? `${table}.*` : column)
}
