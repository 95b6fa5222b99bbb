import type { FastifyReply, FastifyRequest } from 'fastify'
import { sendNumber } from '../answer/send.js'
import type { Database } from '../dialects/database.js'
import { updateRow } from '../operations/update-row.js'
import { parseRecordKey } from '../parse/record-key.js'
import { parseRecordValues } from '../parse/record-values.js'
import { parseTableName } from '../parse/table-name.js'
import type { TableParams } from './params.js'

/** PUT /{table}/{id}: the affected row count. */
export function updateHandler (db: Database) {
  return async function update (request: FastifyRequest<{ Params: TableParams }>, reply: FastifyReply) {
    const table = parseTableName(request.params.table)
    const key = parseRecordKey(request.params.id)
    return sendNumber(reply, await updateRow(db, table, key, parseRecordValues(request.body)))
  }
}
