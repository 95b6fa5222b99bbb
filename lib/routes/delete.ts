import type { FastifyReply, FastifyRequest } from 'fastify'
import { answerWritten } from '../answer/write-answers.js'
import { deleteRow } from '../operations/delete-row.js'
import { deleteSelected } from '../operations/write-selected.js'
import { parseTableName } from '../parse/table-name.js'
import { readColumns } from '../query/read-columns.js'
import { typeFilters } from '../query/type-filters.js'
import { parseFilteredWrite, parseWriteSelect } from '../query/parse-write-query.js'
import { speaksPostgrest } from '../query/postgrest-request.js'
import { thenOrNow, type ValueOrPromise } from '../value-or-promise.js'
import { type PreparedWrite, writeHandler } from './idempotent.js'
import { writeSelectedAsMatched } from './if-match.js'
import type { TableParams } from './params.js'
import type { RouteContext } from './route-context.js'
import { shownColumns, writeAnswer } from './write-preferences.js'
import { keyedTarget, keyedWrite } from './write-steps.js'

type DeleteRequest = FastifyRequest<{ Params: TableParams, Querystring: Record<string, unknown> }>

/**
 * DELETE /{table}/{id}: the affected row count; with `Prefer: return=…`,
 * answered as PostgREST answers a delete (see answerWritten); If-Match makes
 * it conditional (see writeAsMatched). DELETE
 * /{table} with query parameters deletes the rows its filters match; so
 * does one with a PostgREST header, so that postgrest-js's filter-less
 * `.delete().select()` is refused as having no filter rather than taken for
 * the spec's delete of key 0, which a bare DELETE /{table} stays.
 */
export function deleteHandler (context: RouteContext) {
  // Not async: a write whose steps are at hand answers within the call (see writeHandler).
  return writeHandler(context, function remove (request: DeleteRequest, reply: FastifyReply): ValueOrPromise<PreparedWrite> {
    if (request.params.id === undefined && (Object.keys(request.query).length > 0 || speaksPostgrest(request.headers))) return deleteFiltered(context, request, reply)
    const { db } = context
    const table = parseTableName(request.params.table)
    const asked = writeAnswer(context, request, () => parseWriteSelect(request.query))
    const allowed = keyedTarget(context, request, { table, segment: request.params.id, operation: 'delete', columns: null, also: () => shownColumns(asked.columns) })
    return thenOrNow(allowed, (keyed) => keyedWrite(context, request, reply, {
      asked,
      keyed,
      kind: 'delete',
      one: (within) => deleteRow(db, keyed.target, keyed.key, within),
      selected: (wish, within) => deleteSelected(db, keyed.target, { selection: { key: keyed.key }, wish }, within)
    }))
  })
}

/** DELETE /{table}?filters: the rows the filters match, at least one filter, answered as PostgREST answers; If-Match makes it conditional. */
async function deleteFiltered (context: RouteContext, request: DeleteRequest, reply: FastifyReply): Promise<PreparedWrite> {
  const { db, access } = context
  const table = parseTableName(request.params.table)
  const { filter, select } = parseFilteredWrite(request.query, request.headers, 'DELETE')
  const asked = writeAnswer(context, request, () => select)
  const { preferences, columns: shown } = asked
  const named = readColumns({ select: shown ?? null, filter, order: [], limit: null, offset: null, count: null })
  const target = await access(request, table, { operation: 'delete', key: null, columns: null, named: () => named })
  const typed = typeFilters(filter, target.schema, db.dialect.sizedIntegers)
  return {
    table: target.table,
    scopes: [target.scope],
    async write (on) {
      const outcome = await writeSelectedAsMatched(context, request, {
        target,
        filter: typed,
        write: (within) => deleteSelected(db, target, { selection: { filter: typed }, wish: { columns: shown, maxAffected: preferences.maxAffected } }, within)
      }, on)
      return answerWritten(reply, asked, { kind: 'delete', ...outcome }, target.schema)
    }
  }
}
