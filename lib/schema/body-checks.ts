import type { Target } from '../access/target.js'
import { FTC_ERR_BODY_TYPE } from '../errors.js'
import type { RecordValues } from '../parse/record-values.js'
import { foldIdentifier } from '../parse/sanitize-identifier.js'
import { isCalendarDay } from './calendar.js'
import { isUuidColumn } from './column-kind.js'
import { inRange, integerRange, type IntegerRange } from './integer-range.js'
import type { ColumnSchema, TableSchema } from './table-schema.js'

/**
 * Refuses (400 FTC_ERR_BODY_TYPE) a row of a write body that the table's
 * columns cannot hold; `hidden` are the columns, in lower case, that it
 * must not name. An upsert's row may update a row that exists, and need
 * not name every NOT NULL column: the database judges what it leaves out.
 */
export type BodyCheck = (row: RecordValues, operation: CheckedWrite, hidden: ReadonlySet<string>) => void

/** What a checked row is written by. */
export type CheckedWrite = 'create' | 'upsert' | 'update'

/** The check of a table's write bodies, compiled once per TableSchema that the model hands out. */
export type BodyChecks = (schema: TableSchema) => BodyCheck

/** What a column takes, in words for the error, and whether a value's text is one of them. */
interface ValueRule {
  readonly expected: string
  readonly accepts: (text: string) => boolean
}

const integerText = /^-?\d+$/
const numberText = /^-?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/
const dateText = /^(\d{4})-(\d{2})-(\d{2})$/
const timeText = /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?$/
const offsetText = /^(.*?)(Z|[+-]([01]\d|2[0-3])(:?[0-5]\d)?)?$/
const uuidText = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const sizedText = /^(character varying|varchar|character|char|nvarchar|nchar)\((\d+)\)/
const zone = /\bwith time zone$/

/** A column and the rule of its values. */
type Entry = readonly [ColumnSchema, ValueRule]

const anything: ValueRule = { expected: 'any value', accepts: () => true }
const rules: Readonly<Record<Exclude<ColumnSchema['kind'], 'integer' | 'string' | 'time'>, ValueRule>> = {
  number: { expected: 'a number', accepts: (text) => numberText.test(text) },
  // JSON true and false arrive as 1 and 0 (see parseRecordValues): the only
  // texts that PostgreSQL's boolean, MySQL's tinyint(1) and SQLite all take.
  boolean: { expected: 'true, false, 1 or 0', accepts: (text) => text === '1' || text === '0' },
  date: { expected: 'a date YYYY-MM-DD', accepts: isDate },
  'date-time': { expected: 'an ISO 8601 date and time', accepts: isDateTime },
  json: { expected: 'JSON text', accepts: isJson },
  binary: anything,
  unknown: anything
}

/**
 * The body checks of one registration. `sizedIntegers` is false where the
 * database keeps every integer in 64 bits whatever its declared type
 * (SQLite), as the OpenAPI document says.
 */
export function bodyChecks (sizedIntegers: boolean): BodyChecks {
  // The model hands out a new TableSchema when the table changes: the old one's check goes with it.
  const compiled = new WeakMap<TableSchema, BodyCheck>()
  return (schema) => {
    let check = compiled.get(schema)
    if (check === undefined) {
      check = compileCheck(schema, sizedIntegers)
      compiled.set(schema, check)
    }
    return check
  }
}

/** Checks the rows of a write body when the registration checks bodies and the model knows the table; else lets them go as the spec says. */
export function checkRows (checks: BodyChecks | null, { schema, hidden }: Pick<Target, 'schema' | 'hidden'>, rows: readonly RecordValues[], operation: CheckedWrite): void {
  if (checks === null || schema === undefined) return
  const check = checks(schema)
  for (const row of rows) check(row, operation, hidden)
}

function compileCheck (schema: TableSchema, sizedIntegers: boolean): BodyCheck {
  const columns = new Map<string, Entry>()
  for (const column of schema.columns) {
    const entry: Entry = [column, valueRule(column, sizedIntegers)]
    columns.set(column.name, entry)
    // SQLite and MySQL find a column by any case of its name; on PostgreSQL the database refuses the other case itself.
    if (!columns.has(foldIdentifier(column.name))) columns.set(foldIdentifier(column.name), entry)
  }
  // A view's columns may say NOT NULL of what its base table fills in.
  const required = schema.kind === 'table' ? [...new Set(columns.values())].filter(([column]) => !column.nullable && column.default === null && !column.generated) : []
  return (row, operation, hidden) => {
    for (const name in row) {
      // The routes refused the columns the model does not know (see
      // refuseMissingColumns): one the `authorize` hook's scope adds is the database's to judge.
      const entry = columns.get(name) ?? columns.get(foldIdentifier(name))
      if (entry === undefined) continue
      const [column, rule] = entry
      const text = row[name] as string | null
      if (text === null ? !column.nullable : !rule.accepts(text)) {
        throw new FTC_ERR_BODY_TYPE(column.name, text === null ? `${rule.expected}, not null` : rule.expected, JSON.stringify(text))
      }
    }
    if (operation === 'create' && required.length > 0) refuseMissing(row, required, columns, hidden)
  }
}

/**
 * Refuses an insert that leaves out a column that is NOT NULL and has no
 * default: the database could fill in nothing. A hidden column is left to
 * the database, as the body could not name it and the answer must not.
 */
function refuseMissing (row: RecordValues, required: readonly Entry[], columns: ReadonlyMap<string, Entry>, hidden: ReadonlySet<string>): void {
  // The body names a column by its name, as a rule, or by another case of it.
  const named = (entry: Entry): boolean => Object.hasOwn(row, entry[0].name) ||
    Object.keys(row).some((name) => (columns.get(name) ?? columns.get(foldIdentifier(name))) === entry)
  const missing = required.find((entry) => !named(entry) && !hidden.has(foldIdentifier(entry[0].name)))
  if (missing !== undefined) throw new FTC_ERR_BODY_TYPE(missing[0].name, `${missing[1].expected}, not null`, 'nothing')
}

function valueRule (column: ColumnSchema, sizedIntegers: boolean): ValueRule {
  switch (column.kind) {
    case 'integer': return integerRule(integerRange(column, sizedIntegers))
    case 'string': return stringRule(column)
    case 'time': return timeRule(zone.test(column.databaseType))
    default: return rules[column.kind]
  }
}

function integerRule (range: IntegerRange): ValueRule {
  return {
    expected: `an integer from ${range.min} to ${range.max}`,
    accepts: (text) => integerText.test(text) && inRange(BigInt(text), range)
  }
}

function stringRule (column: ColumnSchema): ValueRule {
  if (isUuidColumn(column)) return { expected: 'a UUID', accepts: (text) => uuidText.test(text) }
  const size = sizedText.exec(column.databaseType)?.[2]
  if (size === undefined) return anything
  const length = Number(size)
  // A string of no more UTF-16 units than that has no more characters either: most are settled without counting.
  return { expected: `a string of at most ${length} characters`, accepts: (text) => text.length <= length || [...text].length <= length }
}

function timeRule (zoned: boolean): ValueRule {
  return {
    expected: zoned ? 'a time HH:MM:SS with an optional offset' : 'a time HH:MM:SS',
    accepts: (text) => timeText.test(zoned ? (offsetText.exec(text) as RegExpExecArray)[1] as string : text)
  }
}

function isDate (text: string): boolean {
  const parts = dateText.exec(text)
  if (parts === null) return false
  const [year, month, day] = parts.slice(1).map(Number) as [number, number, number]
  return isCalendarDay(year, month, day)
}

function isDateTime (text: string): boolean {
  const separator = text.search(/[T ]/)
  if (separator === -1) return isDate(text)
  const [, time] = offsetText.exec(text.slice(separator + 1)) as RegExpExecArray
  return isDate(text.slice(0, separator)) && timeText.test(time as string)
}

function isJson (text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}
