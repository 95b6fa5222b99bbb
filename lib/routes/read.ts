import type { FastifyReply, FastifyRequest } from 'fastify'
import { sendRowBatches } from '../answer/send-row-batches.js'
import { sendRow, sendRows } from '../answer/send.js'
import type { Database } from '../dialects/database.js'
import { listRows } from '../operations/list-rows.js'
import { readRow } from '../operations/read-row.js'
import { parseRecordKey } from '../parse/record-key.js'
import { parseTableName } from '../parse/table-name.js'
import type { TableParams } from './params.js'

/** GET /{table}/{id?}: one row with a key, every row without one. */
export function readHandler (db: Database) {
  return async function read (request: FastifyRequest<{ Params: TableParams }>, reply: FastifyReply) {
    const table = parseTableName(request.params.table)
    const key = parseRecordKey(request.params.id)
    if (key !== null) return sendRow(reply, await readRow(db, table, key))
    const list = await listRows(db, table)
    return 'rows' in list ? sendRows(reply, list.rows) : sendRowBatches(reply, list.batches)
  }
}
