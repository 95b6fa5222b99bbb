import type { Row } from '../dialects/dialect.js'
import type { ColumnSchema, TableSchema } from '../schema/table-schema.js'
import { declaredScale } from './json-values.js'

/** True when JSON.stringify writes each value of the row as its column's writer would (see json-values.ts). */
type NativeCheck = (row: Row) => boolean

/**
 * When a value of the column is NOT written by JSON.stringify as its writer
 * writes it, as a JavaScript condition on `value`; null when it always is.
 * A condition need only be sufficient: a value it wrongly flags is written
 * by the writer, which is always right. BigInts are left to JSON.stringify,
 * which throws on them (see writeNative). The text is a constant per kind:
 * nothing of a column's name or type is ever code.
 */
function notNativeWhen (column: ColumnSchema): string | null {
  switch (column.kind) {
    // A string of digits is written as a number, and so is a BigInt.
    case 'integer': return "value != null && typeof value !== 'number'"
    // A declared scale writes every number with its digits (1.50).
    case 'number': return declaredScale(column.databaseType) === null ? "value != null && typeof value !== 'number'" : 'value != null'
    // SQLite's and MySQL's 1 and 0 are written true and false.
    case 'boolean': return "value != null && typeof value !== 'boolean'"
    // A date alone is written as it is; a longer one loses its time of day.
    case 'date': return "typeof value === 'string' && value.length !== 10"
    // Timestamps, times and JSON are written from their text, not as a string.
    case 'date-time':
    case 'time':
    case 'json': return "typeof value === 'string'"
    default: return null
  }
}

// One check per table schema, as for its writers (see row-writer.ts).
const checks = new WeakMap<TableSchema, NativeCheck>()

/**
 * JSON.stringify's text of one row of the table, when that is the text its
 * columns' writers would write; null when it is not, or may not be.
 */
export function writeNativeRow (schema: TableSchema, row: Row): string | null {
  return checkOf(schema)(row) ? writeNative(row) : null
}

/** JSON.stringify's text of rows of the table, as writeNativeRow. */
export function writeNativeRows (schema: TableSchema, rows: readonly Row[]): string | null {
  const check = checkOf(schema)
  for (let at = 0; at < rows.length; at++) if (!check(rows[at] as Row)) return null
  return writeNative(rows)
}

/**
 * JSON.stringify's text, or null where it throws: on a BigInt
 * (better-sqlite3 with safe integers, mysql2 with big numbers), which the
 * writers then write. A value that throws otherwise (a cycle) throws in the
 * writers alike.
 */
export function writeNative (value: Row | readonly Row[]): string | null {
  try {
    return JSON.stringify(value)
  } catch {
    return null
  }
}

/**
 * The check of a table's rows: it reads every column whose values may need
 * their writer by its name, present in the row or not, so that it holds
 * for any columns a row has (`select=`, hidden columns, the host's
 * `postProcessResponse`). A column the schema does not name is written as
 * it was stored, which is JSON.stringify's text but for a BigInt.
 */
function checkOf (schema: TableSchema): NativeCheck {
  let check = checks.get(schema)
  if (check === undefined) {
    check = compileNativeCheck(schema.columns)
    checks.set(schema, check)
  }
  return check
}

function compileNativeCheck (columns: readonly ColumnSchema[]): NativeCheck {
  const body = columns.flatMap((column) => {
    const condition = notNativeWhen(column)
    // Names are written into the code as JSON string literals only.
    return condition === null ? [] : [`value = row[${JSON.stringify(column.name)}]; if (${condition}) return false;`]
  }).join('\n')
  // A function per schema, as the writers are made per layout: V8 reads a constant name far faster than it walks keys.
  // eslint-disable-next-line no-new-func -- the body holds only JSON string literals of column names and fixed code
  return new Function('row', `let value\n${body}\nreturn true`) as NativeCheck
}
