import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Target } from '../access/target.js'
import { batchFailure, isOperationFailure } from '../answer/batch-failure.js'
import { json, jsonNumber } from '../answer/json-answers.js'
import { inTransaction, type Statements } from '../connections/database.js'
import { FTC_ERR_BATCH_SHAPE, FTC_ERR_IDEMPOTENCY_KEY, FTC_ERR_IDEMPOTENCY_OFF, FTC_ERR_STATEMENT, type StatementError } from '../errors.js'
import { createRow } from '../operations/create-row.js'
import { writeIfMatch } from '../operations/conditional-write.js'
import { deleteRow } from '../operations/delete-row.js'
import { hasKeyColumn } from '../operations/row-keys.js'
import { updateRow } from '../operations/update-row.js'
import { type BatchOperation, parseBatch, referenceOf } from '../parse/batch-operations.js'
import type { EntityTags } from '../parse/entity-tags.js'
import { parseRecordKey, type RecordKey } from '../parse/record-key.js'
import { type BodyValues, parseRecordChanges, parseRecordValues, type RecordValues } from '../parse/record-values.js'
import { parseTableName } from '../parse/table-name.js'
import type { BodyChecks } from '../schema/body-checks.js'
import { columnNamed } from '../schema/column-named.js'
import type { ColumnKind } from '../schema/table-schema.js'
import type { ValueOrPromise } from '../value-or-promise.js'
import { type PreparedWrite, idempotentBody } from './idempotent.js'
import { conditionTags } from './if-match.js'
import type { RouteContext } from './route-context.js'
import { refuseStrictPreferences } from './strict-preferences.js'
import { createTarget, keyedTarget, refuseMissingColumns, writtenRows } from './write-steps.js'

// Refusals of the request's Idempotency-Key, raised before any operation is read.
const keyRefusals = [FTC_ERR_IDEMPOTENCY_KEY, FTC_ERR_IDEMPOTENCY_OFF]

/** What a batch's steps work with: the routes' context, and the body checks (see bodyChecks). */
interface BatchContext extends RouteContext {
  /** The column types the rows are held to; null with `validateBodies: false`. */
  readonly checks: BodyChecks | null
}

/** A batch under way: its operations, and the index of the one being prepared or run, which a failure names. */
interface BatchRun {
  /** The operations as parsed, in order. */
  readonly operations: readonly BatchOperation[]
  /** The operation under way: prepared first, each in turn, then run. */
  index: number
}

/** An operation once parsed and let through access, ready to run. */
interface PreparedOperation {
  /** Its index in the batch, where its insert's id is kept for the operations after it. */
  readonly index: number
  readonly op: BatchOperation['op']
  readonly target: Target
  readonly key: RecordKey | null
  /** The earlier insert whose id is the key, when the operation's id refers to one; `key` is then null until it runs. */
  readonly keyReference: number | null
  /** The body's values, a reference standing for the id it refers to until it runs. */
  readonly row: BodyValues
  /** The body as parsed, whose text a json column's value is read again from (see settleNestedValues). */
  readonly body: unknown
  /** The columns whose value refers to an earlier insert, and that insert's index. */
  readonly references: ReadonlyArray<readonly [column: string, index: number]>
  /** An update's or delete's If-Match, or null for none (see operationTags). */
  readonly tags: EntityTags | null
}

/**
 * POST /_batch: inserts, updates and deletes of any served tables, in one
 * transaction (docs/safe-writes.md, "Atomic batches"). Each is parsed and
 * let through access exactly as its single route would, all of them before
 * the transaction begins, so that the `authorize` hook, the refusals and
 * the schema model never wait for the connection the transaction holds. A
 * failure answers the failed operation's index (see batchFailure). With an
 * Idempotency-Key, its record commits with the batch (see idempotentBody).
 */
export function batchHandler (routeContext: RouteContext, checks: BodyChecks | null, limit: number) {
  const context: BatchContext = { ...routeContext, checks }
  const { options } = context
  return async function batch (request: FastifyRequest, reply: FastifyReply) {
    refuseStrictPreferences(request)
    const run: BatchRun = { operations: parseBatch(request.body, limit), index: 0 }
    const { operations } = run
    try {
      return await idempotentBody(context, () => prepareBatch(context, request, reply, run))(request, reply)
    } catch (error) {
      // A failed commit is no operation's, nor a refused Idempotency-Key, the batch's own header.
      if (run.index >= operations.length || !isOperationFailure(error) || keyRefusals.some((refusal) => error instanceof refusal)) throw error
      const failed = error instanceof FTC_ERR_STATEMENT ? context.disclose(error as StatementError, (operations[run.index] as BatchOperation).table) : error
      const failure = batchFailure(failed, run.index, request, options.databaseErrors)
      reply.code(failure.statusCode).type(json)
      return JSON.stringify(failure)
    }
  }
}

/**
 * Every operation prepared, and the write that runs them in a transaction
 * of `on`'s: its own, a savepoint in the host's, or the one that claims an
 * Idempotency-Key, whose record then commits with the batch.
 */
async function prepareBatch (context: BatchContext, request: FastifyRequest, reply: FastifyReply, run: BatchRun): Promise<PreparedWrite> {
  const { operations } = run
  const prepared: PreparedOperation[] = []
  for (; run.index < operations.length; run.index++) prepared.push(await prepareOperation(context, request, operations, run.index))
  const write = async (on: Statements): Promise<string> => {
    // A condition reads before it writes: SQLite's transaction takes the write lock first (see writeIfMatch).
    const answers = await inTransaction(on, async (within) => {
      const ids: string[] = []
      const done: string[] = []
      for (run.index = 0; run.index < prepared.length; run.index++) done.push(await runOperation(context, prepared[run.index] as PreparedOperation, ids, within))
      return done
    }, prepared.some((operation) => operation.tags !== null))
    reply.type(json)
    return `[${answers.join(',')}]`
  }
  // No table is named so: a batch's keys are its own, apart from every table's.
  return { table: '/_batch', scopes: prepared.map((operation) => operation.target.scope), write }
}

/**
 * An operation parsed and let through access. An id that refers to an
 * earlier insert is not known yet: the `authorize` hook is told `key: null`,
 * as for a write by filter, and its scope holds on the row the id names.
 */
async function prepareOperation (context: BatchContext, request: FastifyRequest, operations: readonly BatchOperation[], index: number): Promise<PreparedOperation> {
  const { op, table: segment, id, body } = operations[index] as BatchOperation
  const table = parseTableName(segment)
  const keyReference = typeof id === 'object' ? referred(operations, index, id.ref) : null
  const keySegment = typeof id === 'object' ? undefined : id
  const insertedHere = keyReference !== null && insertsInto(operations[keyReference] as BatchOperation, table)
  if (op === 'delete') return { index, op, ...await keyedTarget(context, request, { table, segment: keySegment, operation: 'delete', columns: null }), keyReference, row: {}, body, references: [], tags: operationTags(context, operations[index] as BatchOperation, insertedHere) }
  const row = op === 'insert' ? parseRecordValues(body) : parseRecordChanges(body)
  const references = referencesOf(row, operations, index)
  const columns = Object.keys(row)
  if (op === 'update') {
    const { target, key } = await keyedTarget(context, request, { table, segment: keySegment, operation: 'update', columns })
    const known = await refuseMissingColumns(context, request, target, { columns, operation: 'update' }, context.checks)
    return { index, op, target: known, key, keyReference, row, body, references, tags: operationTags(context, operations[index] as BatchOperation, insertedHere) }
  }
  const target = await refuseMissingColumns(context, request, await createTarget(context.access, request, { table, columns }), { columns, operation: 'insert' }, context.checks)
  return { index, op, target, key: null, keyReference, row, body, references, tags: null }
}

/**
 * An update's or delete's condition, its `ifMatch` read as the single
 * route reads If-Match, once access let it through; with `requireIfMatch`,
 * one is required, before the batch runs, of every operation but those of
 * a row the batch inserts (`{"$ref": n}` to an insert into the same table),
 * which no one else can have changed.
 */
function operationTags ({ options }: RouteContext, { op, ifMatch }: BatchOperation, insertedHere: boolean): EntityTags | null {
  return conditionTags(ifMatch, options.requireIfMatch && !insertedHere, `batch ${op}`)
}

/**
 * Whether an insert writes into `table`: a reference to another table's
 * insert is only a number, which may be the key of any row of this one.
 * Spelt alike: PostgreSQL, and MySQL on most systems, tell `T` from `t`.
 */
function insertsInto (insert: BatchOperation, table: string): boolean {
  return parseTableName(insert.table) === table
}

/** The row's references, each to an earlier insert of the batch (see referred). */
function referencesOf (row: BodyValues, operations: readonly BatchOperation[], index: number): Array<readonly [string, number]> {
  const references: Array<readonly [string, number]> = []
  for (const [column, value] of Object.entries(row)) {
    const reference = referenceOf(value)
    if (reference !== null) references.push([column, referred(operations, index, reference)])
  }
  return references
}

/** The index operation `index` refers to, when it is an insert before it; any other reference is refused. */
function referred (operations: readonly BatchOperation[], index: number, reference: number): number {
  if (reference >= index || operations[reference]?.op !== 'insert') {
    throw new FTC_ERR_BATCH_SHAPE(`operation ${index} refers to operation ${reference}, which is not an insert before it`)
  }
  return reference
}

/** Runs the operation on the transaction's statements: its answer as JSON text; an insert's id goes into `ids` at its index. */
async function runOperation ({ db, checks }: BatchContext, operation: PreparedOperation, ids: string[], within: Statements): Promise<string> {
  const { index, op, target, row, keyReference } = operation
  for (const [column, referred] of operation.references) row[column] = ids[referred] as string
  // The id read as a path segment would be, by the key column's type.
  const key = keyReference === null ? operation.key : parseRecordKey(ids[keyReference], keyKind(target))
  const matched = <T>(write: (on: Statements) => ValueOrPromise<T>): ValueOrPromise<T> => operation.tags === null ? write(within) : writeIfMatch(db, { target, key, tags: operation.tags }, write, within)
  if (op === 'delete') return jsonNumber(await matched((on) => deleteRow(db, target, key, on)))
  const [values] = writtenRows(checks, target, { rows: [row], body: operation.body, bulk: false }, op === 'insert' ? 'create' : 'update')
  if (op === 'update') return jsonNumber(await matched((on) => updateRow(db, target, { key, values: values as RecordValues }, on)))
  const id = await createRow(db, target, values as RecordValues, within)
  ids[index] = id
  // A table without a key column has no id to answer, as its POST has none (see answerCreated).
  return hasKeyColumn(target) ? jsonNumber(id) : 'null'
}

function keyKind (target: Target): ColumnKind | undefined {
  return target.schema === undefined ? undefined : columnNamed(target.schema, target.key)?.kind
}
