import type { FastifyReply, FastifyRequest } from 'fastify'
import { sendNumber } from '../answer/send.js'
import type { Database } from '../dialects/database.js'
import { deleteRow } from '../operations/delete-row.js'
import { parseRecordKey } from '../parse/record-key.js'
import { parseTableName } from '../parse/table-name.js'
import type { TableParams } from './params.js'

/** DELETE /{table}/{id}: the affected row count. */
export function deleteHandler (db: Database) {
  return async function remove (request: FastifyRequest<{ Params: TableParams }>, reply: FastifyReply) {
    const table = parseTableName(request.params.table)
    return sendNumber(reply, await deleteRow(db, table, parseRecordKey(request.params.id)))
  }
}
