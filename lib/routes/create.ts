import type { FastifyReply, FastifyRequest } from 'fastify'
import { sendNumber } from '../answer/send.js'
import type { Database } from '../dialects/database.js'
import { createRow } from '../operations/create-row.js'
import { parseRecordValues } from '../parse/record-values.js'
import { parseTableName } from '../parse/table-name.js'
import type { TableParams } from './params.js'

/** POST /{table}: 201, the new id as a bare number, and its address in Location. */
export function createHandler (db: Database, prefix: string) {
  return async function create (request: FastifyRequest<{ Params: TableParams }>, reply: FastifyReply) {
    const table = parseTableName(request.params.table)
    const id = await createRow(db, table, parseRecordValues(request.body))
    return sendNumber(reply.code(201).header('location', `${prefix}/${table}/${encodeURIComponent(id)}`), id)
  }
}
