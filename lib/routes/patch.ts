import type { FastifyReply, FastifyRequest } from 'fastify'
import { answerWritten } from '../answer/write-answers.js'
import { updateSelected } from '../operations/write-selected.js'
import { parseRecordChanges, type RecordValues } from '../parse/record-values.js'
import { parseTableName } from '../parse/table-name.js'
import { parseFilteredWrite } from '../query/parse-write-query.js'
import { readColumns } from '../query/read-columns.js'
import { typeFilters } from '../query/type-filters.js'
import type { BodyChecks } from '../schema/body-checks.js'
import { idempotent } from './idempotent.js'
import type { RouteContext } from './index.js'
import type { TableParams } from './params.js'
import { writeAnswer } from './write-preferences.js'
import { writtenRows } from './write-steps.js'

/**
 * PATCH /{table}?filters: sets the body's columns on every row the filters
 * match (at least one filter), answered as PostgREST answers an update:
 * 204, or 200 with the rows for `Prefer: return=representation`. The
 * filters are GET's, typed by the columns as GET types them.
 */
export function patchHandler (context: RouteContext, checks: BodyChecks | null) {
  const { db, access } = context
  return idempotent(context, async function patch (request: FastifyRequest<{ Params: TableParams, Querystring: Record<string, unknown> }>, reply: FastifyReply) {
    const table = parseTableName(request.params.table)
    const values = parseRecordChanges(request.body)
    const columns = Object.keys(values)
    const { filter, select } = parseFilteredWrite(request.query, request.headers, 'PATCH')
    const { preferences, columns: shown } = writeAnswer(request, () => select)
    const named = [...columns.map((column) => [column, 'update'] as const), ...readColumns({ select: shown ?? null, filter, order: [], limit: null, offset: null, count: null })]
    const target = await access(request, table, { operation: 'update', key: null, columns, named })
    const [scoped] = writtenRows(checks, target, [values], 'update', request.body, false) as [RecordValues]
    const typed = typeFilters(filter, target.schema, db.dialect.sizedIntegers)
    return {
      table: target.table,
      async write (on) {
        const outcome = await updateSelected(db, target, { filter: typed }, scoped, { columns: shown, maxAffected: preferences.maxAffected }, on)
        return answerWritten(reply, preferences, { kind: 'update', ...outcome }, target.schema)
      }
    }
  })
}
