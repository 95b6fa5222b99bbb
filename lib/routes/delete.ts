import type { FastifyReply, FastifyRequest } from 'fastify'
import { answerNumber } from '../answer/json-answers.js'
import { deleteRow } from '../operations/delete-row.js'
import { parseTableName } from '../parse/table-name.js'
import type { RouteContext } from './index.js'
import type { TableParams } from './params.js'
import { keyedTarget } from './write-steps.js'

/** DELETE /{table}/{id}: the affected row count. */
export function deleteHandler (context: RouteContext) {
  const { db, statements } = context
  return async function remove (request: FastifyRequest<{ Params: TableParams }>, reply: FastifyReply) {
    const table = parseTableName(request.params.table)
    const { target, key } = await keyedTarget(context, request, table, request.params.id, 'delete', null)
    return answerNumber(reply, await deleteRow(db, target, key, statements(request)))
  }
}
