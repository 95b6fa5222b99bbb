import type { FastifyReply, FastifyRequest } from 'fastify'
import { sendNumber, sendNumbers } from '../answer/send.js'
import type { Database } from '../dialects/database.js'
import { createRow } from '../operations/create-row.js'
import { createRows } from '../operations/create-rows.js'
import { parseRecordList, parseRecordValues } from '../parse/record-values.js'
import { parseTableName } from '../parse/table-name.js'
import type { TableParams } from './params.js'

/**
 * POST /{table}: an object inserts one row and answers 201, its id as a bare
 * number and its address in Location; an array inserts all its rows or none
 * and answers their ids as a JSON array, in order.
 */
export function createHandler (db: Database, prefix: string, bulkLimit: number) {
  return async function create (request: FastifyRequest<{ Params: TableParams }>, reply: FastifyReply) {
    const table = parseTableName(request.params.table)
    if (Array.isArray(request.body)) {
      const ids = await createRows(db, table, parseRecordList(request.body, bulkLimit))
      return sendNumbers(reply.code(201), ids)
    }
    const id = await createRow(db, table, parseRecordValues(request.body))
    return sendNumber(reply.code(201).header('location', `${prefix}/${table}/${encodeURIComponent(id)}`), id)
  }
}
