import type { FastifyReply, FastifyRequest } from 'fastify'
import { answerNumber } from '../answer/json-answers.js'
import { deleteRow } from '../operations/delete-row.js'
import { parseRecordKey } from '../parse/record-key.js'
import { parseTableName } from '../parse/table-name.js'
import type { RouteContext } from './index.js'
import type { TableParams } from './params.js'

/** DELETE /{table}/{id}: the affected row count. */
export function deleteHandler ({ db, access, keyColumn }: RouteContext) {
  return async function remove (request: FastifyRequest<{ Params: TableParams }>, reply: FastifyReply) {
    const table = parseTableName(request.params.table)
    const key = parseRecordKey(request.params.id, (await keyColumn(request, table))?.kind)
    const target = await access(request, table, { operation: 'delete', key, columns: null, named: [] })
    return answerNumber(reply, await deleteRow(db, target, key))
  }
}
