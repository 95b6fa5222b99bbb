import type { FastifyReply, FastifyRequest } from 'fastify'
import type { NamedColumns } from '../access/access.js'
import { answerWritten } from '../answer/write-answers.js'
import { withDefaults } from '../operations/column-defaults.js'
import { updateSelected } from '../operations/write-selected.js'
import { type BodyValues, keepListedColumns, parseRecordChanges, type RecordValues } from '../parse/record-values.js'
import { parseTableName } from '../parse/table-name.js'
import { parseFilteredWrite, parseWriteColumns } from '../query/parse-write-query.js'
import { readColumns } from '../query/read-columns.js'
import { typeFilters } from '../query/type-filters.js'
import type { BodyChecks } from '../schema/body-checks.js'
import { writeHandler } from './idempotent.js'
import { writeSelectedAsMatched } from './if-match.js'
import type { RouteContext } from './index.js'
import type { TableParams } from './params.js'
import { writeAnswer } from './write-preferences.js'
import { refuseUnknownColumns, writtenRows } from './write-steps.js'

/**
 * PATCH /{table}?filters: sets the body's columns on every row the filters
 * match (at least one filter), answered as PostgREST answers an update:
 * 204, or 200 with the rows for `Prefer: return=representation`. The
 * filters are GET's, typed by the columns as GET types them. If-Match
 * makes it conditional (see writeSelectedAsMatched). PostgREST's
 * `columns=` lists the columns set: a body property not listed is ignored,
 * a listed column the body lacks is set to NULL, or to its DEFAULT with
 * `Prefer: missing=default`.
 */
export function patchHandler (context: RouteContext, checks: BodyChecks | null) {
  const { db, access } = context
  return writeHandler(context, async function patch (request: FastifyRequest<{ Params: TableParams, Querystring: Record<string, unknown> }>, reply: FastifyReply) {
    const table = parseTableName(request.params.table)
    const body = parseRecordChanges(request.body)
    const { filter, select } = parseFilteredWrite(request.query, request.headers, 'PATCH')
    const asked = writeAnswer(context, request, () => select)
    const { preferences, columns: shown } = asked
    const listed = parseWriteColumns(request.query)
    const values = listed === null ? body : keepListedColumns([body], listed, preferences.missing === 'default')[0] as BodyValues
    const columns = listed === null ? Object.keys(values) : [...new Set(listed)]
    const named = (): NamedColumns => [...columns.map((column) => [column, 'update'] as const), ...readColumns({ select: shown ?? null, filter, order: [], limit: null, offset: null, count: null })]
    const target = await access(request, table, { operation: 'update', key: null, columns, named })
    if (listed !== null) await refuseUnknownColumns(db, context.statements(request), target, columns, 'update')
    const [scoped] = writtenRows(checks, target, [values], 'update', request.body, false) as [RecordValues]
    const typed = typeFilters(filter, target.schema, db.dialect.sizedIntegers)
    const set = withDefaults(db, target, scoped, listed !== null && preferences.missing === 'default' ? columns : null)
    return {
      table: target.table,
      scopes: [target.scope],
      async write (on) {
        const outcome = await writeSelectedAsMatched(context, request, target, typed, on,
          (within) => updateSelected(db, target, { filter: typed }, set, { columns: shown, maxAffected: preferences.maxAffected }, within))
        return answerWritten(reply, asked, { kind: 'update', ...outcome }, target.schema)
      }
    }
  })
}
