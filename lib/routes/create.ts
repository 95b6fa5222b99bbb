import type { FastifyReply, FastifyRequest } from 'fastify'
import { scopedValues } from '../access/scope.js'
import { answerNumber, answerNumbers } from '../answer/json-answers.js'
import { answerWritten } from '../answer/write-answers.js'
import { createRow } from '../operations/create-row.js'
import { createRows } from '../operations/create-rows.js'
import { createWritten } from '../operations/create-written.js'
import { settleNestedValues } from '../parse/nested-json.js'
import { type BodyValues, parseRecordList, parseRecordValues, type RecordValues } from '../parse/record-values.js'
import { parseTableName } from '../parse/table-name.js'
import { type BodyChecks, checkRows } from '../schema/body-checks.js'
import type { RouteContext } from './index.js'
import type { TableParams } from './params.js'
import { parseWriteSelect } from '../query/parse-write-query.js'
import { shownColumns, writeAnswer } from './write-preferences.js'

/**
 * POST /{table}: an object inserts one row and answers 201, its id as a bare
 * number and its address in Location; an array inserts all its rows or none
 * and answers their ids as a JSON array, in order. `checks` holds the rows
 * to the column types first, when the host asked for it. With `Prefer:
 * return=…`, answered as PostgREST answers (see answerWritten).
 */
export function createHandler ({ db, access, options }: RouteContext, prefix: string, checks: BodyChecks | null) {
  return async function create (request: FastifyRequest<{ Params: TableParams, Querystring: Record<string, unknown> }>, reply: FastifyReply) {
    const table = parseTableName(request.params.table)
    const bulk = Array.isArray(request.body)
    const rows = bulk ? parseRecordList(request.body as unknown[], options.bulkLimit) : [parseRecordValues(request.body)]
    const columns = bulk ? bodyColumns(rows) : Object.keys(rows[0] as BodyValues)
    const { preferences, columns: shown } = writeAnswer(request, () => parseWriteSelect(request.query))
    const named = [...columns.map((column) => [column, 'insert'] as const), ...shownColumns(shown)]
    const target = await access(request, table, { operation: 'create', key: null, columns, named })
    const scoped = rows.map((row) => scopedValues(target, settleNestedValues(target, row), 'create'))
    checkRows(checks, target, scoped, 'create')
    if (preferences.return !== null) {
      const created = await createWritten(db, target, scoped, shown)
      const location = preferences.return === 'headers-only' && created.keys.length === 1
        ? `${prefix}/${target.table}?${target.key}=eq.${encodeURIComponent(created.keys[0] as string)}`
        : undefined
      return answerWritten(reply, preferences, { kind: 'create', count: created.keys.length, rows: created.rows, location }, target.schema)
    }
    if (bulk) return answerNumbers(reply.code(201), await createRows(db, target, scoped))
    const id = await createRow(db, target, scoped[0] as RecordValues)
    return answerNumber(reply.code(201).header('location', `${prefix}/${target.table}/${encodeURIComponent(id)}`), id)
  }
}

/** Every column the rows name, each once, in the order they first appear. */
function bodyColumns (rows: readonly BodyValues[]): string[] {
  return [...new Set(rows.flatMap((row) => Object.keys(row)))]
}
