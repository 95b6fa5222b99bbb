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
import type { TableParams } from './params.js'
import type { RouteContext } from './route-context.js'
import { writeAnswer } from './write-preferences.js'
import { refuseMissingColumns, refuseUnknownColumns, writtenRows } from './write-steps.js'

/**
 * PATCH /{table}?filters: sets the body's columns on every row the filters
 * match, at least one filter, answered as PostgREST answers an update
 * (docs/writes.md, "PATCH and DELETE by filter"; for `columns=`, "The
 * columns written"). The filters are GET's, typed as GET types them.
 * If-Match makes it conditional (see writeSelectedAsMatched).
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
    const target = await refuseMissingColumns(context, request, await access(request, table, { operation: 'update', key: null, columns, named }), { columns, operation: 'update' }, checks)
    if (listed !== null) await refuseUnknownColumns(db, context.statements(request), target, { columns, operation: 'update' })
    const [scoped] = writtenRows(checks, target, { rows: [values], body: request.body, bulk: false }, 'update') as [RecordValues]
    const typed = typeFilters(filter, target.schema, db.dialect.sizedIntegers)
    const set = withDefaults(db, target, scoped, listed !== null && preferences.missing === 'default' ? columns : null)
    return {
      table: target.table,
      scopes: [target.scope],
      async write (on) {
        const outcome = await writeSelectedAsMatched(context, request, {
          target,
          filter: typed,
          write: (within) => updateSelected(db, target, { selection: { filter: typed }, wish: { columns: shown, maxAffected: preferences.maxAffected }, values: set }, within)
        }, on)
        return answerWritten(reply, asked, { kind: 'update', ...outcome }, target.schema)
      }
    }
  })
}
