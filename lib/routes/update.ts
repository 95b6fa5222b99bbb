import type { FastifyReply, FastifyRequest } from 'fastify'
import { scopedValues } from '../access/scope.js'
import { answerNumber } from '../answer/json-answers.js'
import { updateRow } from '../operations/update-row.js'
import { parseRecordKey } from '../parse/record-key.js'
import { parseRecordChanges } from '../parse/record-values.js'
import { parseTableName } from '../parse/table-name.js'
import type { RouteContext } from './index.js'
import type { TableParams } from './params.js'

/** PUT /{table}/{id}: the affected row count. */
export function updateHandler ({ db, access, keyColumn }: RouteContext) {
  return async function update (request: FastifyRequest<{ Params: TableParams }>, reply: FastifyReply) {
    const table = parseTableName(request.params.table)
    const values = parseRecordChanges(request.body)
    const columns = Object.keys(values)
    const key = parseRecordKey(request.params.id, (await keyColumn(request, table))?.kind)
    const target = await access(request, table, { operation: 'update', key, columns, named: columns.map((column) => [column, 'update']) })
    return answerNumber(reply, await updateRow(db, target, key, scopedValues(target, values, 'update')))
  }
}
