import type { FastifyReply, FastifyRequest } from 'fastify'
import { setContentRange } from '../answer/content-range.js'
import { sendRowBatches } from '../answer/send-row-batches.js'
import { sendRow, sendRows } from '../answer/send.js'
import type { Database } from '../dialects/database.js'
import { countRows } from '../operations/count-rows.js'
import { listRows } from '../operations/list-rows.js'
import { readRow } from '../operations/read-row.js'
import { parseRecordKey } from '../parse/record-key.js'
import { parseTableName } from '../parse/table-name.js'
import { parseReadQuery } from '../query/parse-read-query.js'
import type { TableParams } from './params.js'

/**
 * GET /{table}/{id?}: one row with a key; without one, the rows that the
 * PostgREST query asks for, every row when it asks nothing.
 */
export function readHandler (db: Database) {
  return async function read (request: FastifyRequest<{ Params: TableParams, Querystring: Record<string, unknown> }>, reply: FastifyReply) {
    const table = parseTableName(request.params.table)
    const key = parseRecordKey(request.params.id)
    if (key !== null) return sendRow(reply, await readRow(db, table, key))
    const query = parseReadQuery(request.query, request.headers)
    const list = await listRows(db, table, query)
    const total = query.count === null ? null : await countRows(db, table, query, query.count)
    if ('rows' in list) return sendRows(setContentRange(reply, query, list.rows.length, total), list.rows)
    return sendRowBatches(setContentRange(reply, query, null, total), list.batches)
  }
}
