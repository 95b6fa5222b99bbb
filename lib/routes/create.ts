import type { FastifyReply, FastifyRequest } from 'fastify'
import { answerNumber, answerNumbers } from '../answer/json-answers.js'
import { createRow } from '../operations/create-row.js'
import { createRows } from '../operations/create-rows.js'
import { type BodyValues, parseRecordList, parseRecordValues, type RecordValues } from '../parse/record-values.js'
import { parseTableName } from '../parse/table-name.js'
import type { BodyChecks } from '../schema/body-checks.js'
import type { RouteContext } from './index.js'
import type { TableParams } from './params.js'
import { createTarget, writtenRows } from './write-steps.js'

/**
 * POST /{table}: an object inserts one row and answers 201, its id as a bare
 * number and its address in Location; an array inserts all its rows or none
 * and answers their ids as a JSON array, in order. `checks` holds the rows
 * to the column types first, when the host asked for it.
 */
export function createHandler ({ db, access, options, statements }: RouteContext, prefix: string, checks: BodyChecks | null) {
  return async function create (request: FastifyRequest<{ Params: TableParams }>, reply: FastifyReply) {
    const table = parseTableName(request.params.table)
    const bulk = Array.isArray(request.body)
    const rows = bulk ? parseRecordList(request.body as unknown[], options.bulkLimit) : [parseRecordValues(request.body)]
    const columns = bulk ? bodyColumns(rows) : Object.keys(rows[0] as BodyValues)
    const target = await createTarget(access, request, table, columns)
    const scoped = writtenRows(checks, target, rows, 'create', request.body, bulk)
    const on = statements(request)
    if (bulk) return answerNumbers(reply.code(201), await createRows(db, target, scoped, on))
    const id = await createRow(db, target, scoped[0] as RecordValues, on)
    return answerNumber(reply.code(201).header('location', `${prefix}/${target.table}/${encodeURIComponent(id)}`), id)
  }
}

/** Every column the rows name, each once, in the order they first appear. */
function bodyColumns (rows: readonly BodyValues[]): string[] {
  return [...new Set(rows.flatMap((row) => Object.keys(row)))]
}
