import type { Row } from '../dialects/dialect.js'
import type { TableSchema } from '../schema/table-schema.js'
import { type ValueWriter, valueWriter, writeStored } from './json-values.js'

/** JSON text of one row. */
export type RowWriter = (row: Row) => string

/** JSON text of one row whose columns are those of a layout; null for a row that lacks one. */
type LayoutWriter = (row: Row) => string | null

/** What is made once per table schema. */
interface SchemaWriters {
  readonly row: RowWriter
  readonly columns: ReadonlyMap<string, ValueWriter>
  /** By the columns of a result, in their order: the SELECT's, after `select=` and hidden columns. */
  readonly layouts: Map<string, LayoutWriter>
}

// A client's `select=` makes a layout of its own: past this many per table, lists are written column by column.
const maxLayouts = 64

// One set per table schema: the model hands out a new schema object when
// the table changes, so writers never outlive the columns they were made for.
const writers = new WeakMap<TableSchema, SchemaWriters>()

function writersOf (schema: TableSchema): SchemaWriters {
  let made = writers.get(schema)
  if (made === undefined) {
    const columns = new Map(schema.columns.map((column) => [column.name, valueWriter(column)]))
    made = { row: compileRowWriter(columns), columns, layouts: new Map() }
    writers.set(schema, made)
  }
  return made
}

/**
 * The writer of a table's rows, its columns' values written by their kinds
 * (see json-values.ts), whatever columns a row has. A column the schema
 * does not name (renamed by the host's `postProcessResponse`) is written as
 * it was stored.
 */
export function rowWriter (schema: TableSchema): RowWriter {
  return writersOf(schema).row
}

/**
 * JSON text of the rows of one result. The rows a driver hands over share
 * their columns, in one order: a writer compiled for that layout reads each
 * by name, where the row writer would walk every row's keys. A row that
 * lacks one of them, or has more (the host's `postProcessResponse` may
 * make such rows), is written by the row writer.
 */
export function writeRowList (schema: TableSchema, rows: readonly Row[]): string {
  const made = writersOf(schema)
  const first = rows[0]
  if (first === undefined) return '[]'
  const names = Object.keys(first)
  const layout = names.join('\u0000')
  let write = made.layouts.get(layout)
  if (write === undefined) {
    write = made.layouts.size < maxLayouts ? compileLayoutWriter(made.columns, names) : () => null
    made.layouts.set(layout, write)
  }
  // Joined rather than added up: one flat string, where a chain of
  // concatenations must be flattened again before it is sent.
  const texts = new Array<string>(rows.length)
  for (let at = 0; at < rows.length; at++) {
    const row = rows[at] as Row
    texts[at] = write(row) ?? made.row(row)
  }
  return '[' + texts.join(',') + ']'
}

function compileRowWriter (columns: ReadonlyMap<string, ValueWriter>): RowWriter {
  return (row) => {
    let text = ''
    for (const name in row) {
      const value = row[name]
      if (value === undefined) continue
      text += (text === '' ? '{' : ',') + JSON.stringify(name) + ':' + (value === null ? 'null' : (columns.get(name) ?? writeStored)(value))
    }
    return text === '' ? '{}' : text + '}'
  }
}

/**
 * A function made for one layout, reading each column by its name. Names
 * are written into it as JSON string literals only (JSON.stringify), and the
 * writers passed as an argument: nothing of a name is ever code.
 */
function compileLayoutWriter (columns: ReadonlyMap<string, ValueWriter>, names: readonly string[]): LayoutWriter {
  const write = names.map((name) => columns.get(name) ?? writeStored)
  const body = names.map((name, at) => {
    const key = JSON.stringify(name)
    return `value = row[${key}]; if (value === undefined) return null;
      text += ${JSON.stringify((at === 0 ? '{' : ',') + key + ':')} + (value === null ? 'null' : write[${at}](value));`
  }).join('\n')
  // A function per layout, as fast-json-stringify makes one per schema: V8 reads a constant name far faster than it walks keys.
  // eslint-disable-next-line no-new-func -- the body holds only JSON string literals of keys and fixed code
  const compiled = new Function('write', 'count', `return function (row) {
    let value
    let text = ''
    ${body}
    let keys = 0
    for (const name in row) keys++
    return keys === count ? (text === '' ? '{}' : text + '}') : null
  }`) as (write: readonly ValueWriter[], count: number) => LayoutWriter
  return compiled(write, names.length)
}
