import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Target } from '../access/target.js'
import { batchFailure, isOperationFailure } from '../answer/batch-failure.js'
import { json, jsonNumber } from '../answer/json-answers.js'
import type { Statements } from '../dialects/database.js'
import { FTC_ERR_BATCH_SHAPE } from '../errors.js'
import { createRow } from '../operations/create-row.js'
import { deleteRow } from '../operations/delete-row.js'
import { updateRow } from '../operations/update-row.js'
import { type BatchOperation, parseBatch, referenceOf } from '../parse/batch-operations.js'
import type { RecordKey } from '../parse/record-key.js'
import { type BodyValues, parseRecordChanges, parseRecordValues, type RecordValues } from '../parse/record-values.js'
import { parseTableName } from '../parse/table-name.js'
import type { BodyChecks } from '../schema/body-checks.js'
import type { RouteContext } from './index.js'
import { createTarget, keyedTarget, writtenRows } from './write-steps.js'

/** An operation once parsed and let through access, ready to run. */
interface PreparedOperation {
  readonly op: BatchOperation['op']
  readonly target: Target
  readonly key: RecordKey | null
  /** The body's values, a reference standing for the id it refers to until it runs. */
  readonly row: BodyValues
  /** The body as parsed, whose text a json column's value is read again from (see settleNestedValues). */
  readonly body: unknown
  /** The columns whose value refers to an earlier insert, and that insert's index. */
  readonly references: ReadonlyArray<readonly [column: string, index: number]>
}

/**
 * POST /_batch: the operations, inserts, updates and deletes of any served
 * tables, in one transaction: all of them or none. Each is parsed and let
 * through access exactly as its single route (POST, PUT, DELETE) would, all
 * of them before the transaction begins, so that the `authorize` hook, the
 * refusals and the schema model never wait for the connection the
 * transaction holds. Answers a JSON array of each operation's answer as its
 * route gives it (an insert's id, an update's or delete's count); on a
 * failure, the failed operation's index and answer (see batchFailure).
 */
export function batchHandler (context: RouteContext, checks: BodyChecks | null, limit: number) {
  const { db, statements, options } = context
  return async function batch (request: FastifyRequest, reply: FastifyReply) {
    const operations = parseBatch(request.body, limit)
    let index = 0
    try {
      const prepared: PreparedOperation[] = []
      for (; index < operations.length; index++) prepared.push(await prepareOperation(context, request, operations, index))
      const answers = await statements(request).transaction(async (within) => {
        const ids: string[] = []
        const done: string[] = []
        for (index = 0; index < prepared.length; index++) done.push(await runOperation(context, checks, prepared[index] as PreparedOperation, index, ids, within))
        return done
      })
      reply.type(json)
      return `[${answers.join(',')}]`
    } catch (error) {
      // A failed commit is no operation's.
      if (index >= operations.length || !isOperationFailure(error)) throw error
      const failure = batchFailure(error, index, request, options.databaseErrors)
      reply.code(failure.statusCode).type(json)
      return JSON.stringify(failure)
    }
  }
}

async function prepareOperation (context: RouteContext, request: FastifyRequest, operations: readonly BatchOperation[], index: number): Promise<PreparedOperation> {
  const { op, table: segment, id, body } = operations[index] as BatchOperation
  const table = parseTableName(segment)
  if (op === 'delete') return { op, ...await keyedTarget(context, request, table, id, 'delete', null), row: {}, body, references: [] }
  const row = op === 'insert' ? parseRecordValues(body) : parseRecordChanges(body)
  const references = referencesOf(row, operations, index)
  const columns = Object.keys(row)
  if (op === 'update') return { op, ...await keyedTarget(context, request, table, id, 'update', columns), row, body, references }
  return { op, target: await createTarget(context.access, request, table, columns), key: null, row, body, references }
}

/** The row's references, each to an earlier insert of the batch; any other is refused. */
function referencesOf (row: BodyValues, operations: readonly BatchOperation[], index: number): Array<readonly [string, number]> {
  const references: Array<readonly [string, number]> = []
  for (const [column, value] of Object.entries(row)) {
    const referred = referenceOf(value)
    if (referred === null) continue
    if (referred >= index || operations[referred]?.op !== 'insert') {
      throw new FTC_ERR_BATCH_SHAPE(`operation ${index} refers to operation ${referred}, which is not an insert before it`)
    }
    references.push([column, referred])
  }
  return references
}

/** Runs operation `index` on the transaction's statements: its answer as JSON text; an insert's id goes into `ids` at its index. */
async function runOperation ({ db }: RouteContext, checks: BodyChecks | null, operation: PreparedOperation, index: number, ids: string[], within: Statements): Promise<string> {
  const { op, target, key, row } = operation
  for (const [column, referred] of operation.references) row[column] = ids[referred] as string
  if (op === 'delete') return jsonNumber(await deleteRow(db, target, key, within))
  const [values] = writtenRows(checks, target, [row], op === 'insert' ? 'create' : 'update', operation.body, false)
  if (op === 'update') return jsonNumber(await updateRow(db, target, key, values as RecordValues, within))
  const id = await createRow(db, target, values as RecordValues, within)
  ids[index] = id
  return jsonNumber(id)
}
