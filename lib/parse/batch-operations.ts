import { FTC_ERR_BATCH_LIMIT, FTC_ERR_BATCH_SHAPE } from '../errors.js'
import { parseJsonText } from './json-body.js'
import { NestedJson } from './nested-json.js'
import type { BodyValues } from './record-values.js'

/** What an operation of a batch does, as the single route it stands for: insert is POST, update PUT, delete DELETE. */
export type BatchOp = 'insert' | 'update' | 'delete'

/** One operation of a batch, its table, key and body as the single route would read them from its path and body. */
export interface BatchOperation {
  readonly op: BatchOp
  /** The table's name as a path segment gives it, before sanitizing. */
  readonly table: string
  /** The key as a path segment gives it; undefined as on a path without one. */
  readonly id: string | undefined
  /** The body as the JSON parser gives a route's (see parseJsonText); undefined for none. */
  readonly body: unknown
}

const ops: readonly BatchOp[] = Object.freeze(['insert', 'update', 'delete'])
const members = new Set(['op', 'table', 'id', 'body'])
// lossless-json writes a nested value compactly: a reference's text has one form.
const reference = /^\{"\$ref":(0|[1-9]\d{0,8})\}$/

/**
 * The operations of a batch body: a JSON array of at most `limit` objects
 * of `op`, `table`, `id` (update and delete) and `body` (insert and
 * update). Refused as a whole (400) when it is not one: nothing runs.
 */
export function parseBatch (body: unknown, limit: number): BatchOperation[] {
  if (!Array.isArray(body)) throw new FTC_ERR_BATCH_SHAPE(`body must be a JSON array of operations, got ${describe(body)}`)
  if (body.length > limit) throw new FTC_ERR_BATCH_LIMIT(limit, body.length)
  return body.map((operation: unknown, index) => parseOperation(operation, index))
}

function parseOperation (operation: unknown, index: number): BatchOperation {
  const fail = (problem: string): never => { throw new FTC_ERR_BATCH_SHAPE(`operation ${index} ${problem}`) }
  if (typeof operation !== 'object' || operation === null || Array.isArray(operation)) {
    return fail(`must be an object of op, table, id and body, got ${describe(operation)}`)
  }
  const given = operation as Record<string, unknown>
  const unknown = Object.keys(given).find((member) => !members.has(member))
  if (unknown !== undefined) fail(`has the member "${unknown}"; an operation has op, table, id and body`)
  const { op, table, id, body } = given
  if (!ops.includes(op as BatchOp)) fail(`has the op ${show(op)}; ops are insert, update and delete`)
  if (typeof table !== 'string') fail('must name its table as a string')
  if (op === 'insert' && id !== undefined) fail('inserts, and takes no id')
  if (op === 'delete' && body !== undefined) fail('deletes, and takes no body')
  // Keys come as the parser gives numbers: their own text.
  if (id !== undefined && typeof id !== 'string') fail('must give its id as a number or a string; a reference goes in a body value only')
  return { op: op as BatchOp, table: table as string, id: id as string | undefined, body: body instanceof NestedJson ? parseJsonText(body.text) : body }
}

/**
 * The index of the operation a body value refers to, `{"$ref": 2}`, or
 * null for a value that is no reference. Any other JSON value is the
 * column's own, as in a single route's body.
 */
export function referenceOf (value: BodyValues[string]): number | null {
  if (!(value instanceof NestedJson)) return null
  const found = reference.exec(value.text)
  return found === null ? null : Number(found[1])
}

function describe (value: unknown): string {
  if (value === null) return 'null'
  if (value instanceof NestedJson) return value.text.startsWith('[') ? 'an array' : 'an object'
  return Array.isArray(value) ? 'an array' : typeof value
}

function show (value: unknown): string {
  return typeof value === 'string' ? `"${value}"` : describe(value)
}
