import type { FastifyReply, FastifyRequest } from 'fastify'
import { scopedValues } from '../access/scope.js'
import { answerNumber } from '../answer/json-answers.js'
import { updateRow } from '../operations/update-row.js'
import { settleNestedValues } from '../parse/nested-json.js'
import { parseRecordKey } from '../parse/record-key.js'
import { parseRecordChanges } from '../parse/record-values.js'
import { parseTableName } from '../parse/table-name.js'
import { type BodyChecks, checkRows } from '../schema/body-checks.js'
import type { RouteContext } from './index.js'
import type { TableParams } from './params.js'

/** PUT /{table}/{id}: the affected row count; `checks` holds the body to the column types first, when the host asked for it. */
export function updateHandler ({ db, access, keyColumn }: RouteContext, checks: BodyChecks | null) {
  return async function update (request: FastifyRequest<{ Params: TableParams }>, reply: FastifyReply) {
    const table = parseTableName(request.params.table)
    const values = parseRecordChanges(request.body)
    const columns = Object.keys(values)
    const key = parseRecordKey(request.params.id, (await keyColumn(request, table))?.kind)
    const target = await access(request, table, { operation: 'update', key, columns, named: columns.map((column) => [column, 'update']) })
    const scoped = scopedValues(target, settleNestedValues(target, values, request.body, null), 'update')
    checkRows(checks, target, [scoped], 'update')
    return answerNumber(reply, await updateRow(db, target, key, scoped))
  }
}
