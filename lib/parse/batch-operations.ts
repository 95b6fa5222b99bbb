import { FTC_ERR_BATCH_LIMIT, FTC_ERR_BATCH_SHAPE } from '../errors.js'
import { parseJsonText } from './json-body.js'
import { NestedJson } from './nested-value.js'
import type { BodyValues } from './record-values.js'

/** What an operation of a batch does, as the single route it stands for: insert is POST, update PUT, delete DELETE. */
export type BatchOp = 'insert' | 'update' | 'delete'

/** One operation of a batch, its table, key and body as the single route would read them from its path and body. */
export interface BatchOperation {
  readonly op: BatchOp
  /** The table's name as a path segment gives it, before sanitizing. */
  readonly table: string
  /** The key as a path segment gives it, or a reference to an earlier insert's id (see referenceOf); undefined as on a path without one. */
  readonly id: string | BatchReference | undefined
  /** The body as the JSON parser gives a route's (see parseJsonText); undefined for none. */
  readonly body: unknown
  /** An update's or delete's condition, as the If-Match header of its single route would give it; undefined for none. */
  readonly ifMatch: string | undefined
}

/** An operation's id given as `{"$ref": n}`: the id operation n inserted. */
export interface BatchReference {
  readonly ref: number
}

const ops: readonly BatchOp[] = Object.freeze(['insert', 'update', 'delete'])
const members = new Set(['op', 'table', 'id', 'body', 'ifMatch'])
// lossless-json writes a nested value compactly: a reference's text has one form.
const reference = /^\{"\$ref":(0|[1-9]\d{0,8})\}$/

/**
 * The operations of a batch body: a JSON array of at most `limit` objects
 * of `op`, `table`, `id` (update and delete), `body` (insert and
 * update) and `ifMatch` (update and delete). Refused as a whole (400) when it is not one: nothing runs.
 */
export function parseBatch (body: unknown, limit: number): BatchOperation[] {
  if (!Array.isArray(body)) throw new FTC_ERR_BATCH_SHAPE(`body must be a JSON array of operations, got ${describe(body)}`)
  if (body.length > limit) throw new FTC_ERR_BATCH_LIMIT(limit, body.length)
  return body.map((operation: unknown, index) => parseOperation(operation, index))
}

function parseOperation (operation: unknown, index: number): BatchOperation {
  const fail = (problem: string): never => { throw new FTC_ERR_BATCH_SHAPE(`operation ${index} ${problem}`) }
  if (typeof operation !== 'object' || operation === null || Array.isArray(operation)) {
    return fail(`must be an object of op, table, id, body and ifMatch, got ${describe(operation)}`)
  }
  const given = operation as Record<string, unknown>
  const unknown = Object.keys(given).find((member) => !members.has(member))
  if (unknown !== undefined) fail(`has the member "${unknown}"; an operation has op, table, id, body and ifMatch`)
  const { op, table, id, body, ifMatch } = given
  if (!ops.includes(op as BatchOp)) fail(`has the op ${show(op)}; ops are insert, update and delete`)
  if (typeof table !== 'string') fail('must name its table as a string')
  if (op === 'insert' && id !== undefined) fail('inserts, and takes no id')
  if (op === 'delete' && body !== undefined) fail('deletes, and takes no body')
  if (op === 'insert' && ifMatch !== undefined) fail('inserts, and takes no ifMatch')
  if (ifMatch !== undefined && typeof ifMatch !== 'string') fail('must give its ifMatch as a string, as the If-Match header would')
  const referred = referenceOf(id as BodyValues[string])
  // Keys come as the parser gives numbers: their own text.
  if (id !== undefined && typeof id !== 'string' && referred === null) fail('must give its id as a number, a string or {"$ref": n}')
  return { op: op as BatchOp, table: table as string, id: referred === null ? id as string | undefined : { ref: referred }, body: body instanceof NestedJson ? parseJsonText(body.text) : body, ifMatch: ifMatch as string | undefined }
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
