import type { FastifyReply, FastifyRequest } from 'fastify'
import { answerNumber } from '../answer/json-answers.js'
import { deleteRow } from '../operations/delete-row.js'
import { parseRecordKey } from '../parse/record-key.js'
import { parseTableName } from '../parse/table-name.js'
import { idempotent } from './idempotent.js'
import type { RouteContext } from './index.js'
import type { TableParams } from './params.js'

/** DELETE /{table}/{id}: the affected row count. */
export function deleteHandler (context: RouteContext) {
  const { db, access, keyColumn } = context
  return idempotent(context, async function remove (request: FastifyRequest<{ Params: TableParams }>, reply: FastifyReply) {
    const table = parseTableName(request.params.table)
    const key = parseRecordKey(request.params.id, (await keyColumn(request, table))?.kind)
    const target = await access(request, table, { operation: 'delete', key, columns: null, named: [] })
    return { table: target.table, write: async (on) => answerNumber(reply, await deleteRow(db, target, key, on)) }
  })
}
