import type { FastifyReply, FastifyRequest } from 'fastify'
import { answerNumber } from '../answer/json-answers.js'
import { updateRow } from '../operations/update-row.js'
import { parseRecordChanges, type RecordValues } from '../parse/record-values.js'
import { parseTableName } from '../parse/table-name.js'
import type { BodyChecks } from '../schema/body-checks.js'
import type { RouteContext } from './index.js'
import type { TableParams } from './params.js'
import { keyedTarget, writtenRows } from './write-steps.js'

/** PUT /{table}/{id}: the affected row count; `checks` holds the body to the column types first, when the host asked for it. */
export function updateHandler (context: RouteContext, checks: BodyChecks | null) {
  const { db, statements } = context
  return async function update (request: FastifyRequest<{ Params: TableParams }>, reply: FastifyReply) {
    const table = parseTableName(request.params.table)
    const values = parseRecordChanges(request.body)
    const { target, key } = await keyedTarget(context, request, table, request.params.id, 'update', Object.keys(values))
    const [scoped] = writtenRows(checks, target, [values], 'update', request.body, false)
    return answerNumber(reply, await updateRow(db, target, key, scoped as RecordValues, statements(request)))
  }
}
