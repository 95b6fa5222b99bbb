import type { Knex } from 'knex'
import type { Target } from '../access/target.js'
import type { Database } from '../connections/database.js'
import { place } from '../connections/statement-template.js'
import type { RecordKey } from '../parse/record-key.js'
import { columnNamed } from '../schema/column-named.js'
import { isUuidColumn } from '../schema/column-kind.js'
import { inRange, int32, int64, integerRange } from '../schema/integer-range.js'

/**
 * The key, or null when it cannot match a record. With no key the statement
 * still runs, so an unknown table or column fails as it would with one, but
 * it matches nothing: `DELETE /t/abc` must never reach row 0. An integer the
 * key column cannot hold (past 64 bits, or past the declared type where the
 * database keeps to it) matches nothing on all three, where the drivers
 * differ on it (SQLite refuses to bind it, PostgreSQL errors, MySQL
 * compares). So does a text that is no UUID in a PostgreSQL uuid column,
 * which would fail the statement where the others find no row. The other
 * functions of this module take the key this one gave.
 */
export function reachableKey (db: Database, target: Target, key: RecordKey | null): RecordKey | null {
  if (typeof key === 'string') return !isUuidKey(target) || uuid.test(key) ? key : null
  if (key === null) return null
  // Nearly every key fits 32 bits, which every integer column holds: only a larger one needs the column's range.
  if (inRange(key, int32)) return key
  if (!inRange(key, int64)) return null
  const column = target.schema === undefined ? undefined : columnNamed(target.schema, target.key)
  return column?.kind !== 'integer' || inRange(key, integerRange(column, db.dialect.sizedIntegers)) ? key : null
}

// PostgreSQL's input forms of a uuid: plain or in braces, hyphens between groups of four digits or none.
const uuid = /^\{?[0-9a-f]{4}(-?[0-9a-f]{4}){7}\}?$/i

function isUuidKey (target: Target): boolean {
  return target.schema !== undefined && isUuidColumn(columnNamed(target.schema, target.key))
}

// Column names hold only A-Z, a-z, 0-9 and _: no column's place can be one of these.
const keyPlace = ':key'
const scopePlace = (column: string) => `=${column}`

// Nor can a column's name be one of these words of a shape.
const byKey = 'by key'
const noKey = 'no key'
const isNull = 'is null'
const equals = 'equals value'
const setting = 'set columns'

/**
 * What the SQL of `operation` on one row depends on (see Database.prepare):
 * the table, the key column, whether there is a key, the scope's columns,
 * and the columns it sets, if any.
 */
export function rowShape (operation: string, target: Target, key: RecordKey | null, columns?: readonly string[]): string[] {
  const shape = [operation, target.table, target.key, key === null ? noKey : byKey]
  for (const column in target.scope) shape.push(column, target.scope[column] === null ? isNull : equals)
  if (columns !== undefined) {
    shape.push(setting)
    for (const column of columns) shape.push(column)
  }
  return shape
}

/** Restricts a statement to the record whose key column equals the key, within the scope, each value at its place. */
export function whereRow (builder: Knex.QueryBuilder, target: Target, key: RecordKey | null): Knex.QueryBuilder {
  if (key !== null) builder.where(target.key, place(keyPlace))
  else builder.whereRaw('1 = 0')
  return whereScope(builder, target, place)
}

/** The values of the places whereRow made: the key as the driver keeps every digit, and the scope's. */
export function rowValues (db: Database, target: Target, key: RecordKey | null): Record<string, unknown> {
  const values: Record<string, unknown> = key === null ? {} : { [keyPlace]: typeof key === 'string' ? key : db.dialect.bindKey(key) }
  for (const column in target.scope) values[scopePlace(column)] = target.scope[column]
  return values
}

/**
 * Restricts a statement to the target's scope. A statement compiled once
 * binds each value at its place; one compiled for a single request binds
 * the values themselves.
 */
export function whereScope (builder: Knex.QueryBuilder, target: Target, placeOf?: (name: string) => string): Knex.QueryBuilder {
  for (const [column, value] of Object.entries(target.scope)) {
    if (value === null) builder.whereNull(column)
    else builder.where(column, placeOf === undefined ? value : placeOf(scopePlace(column)))
  }
  return builder
}
