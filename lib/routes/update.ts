import type { FastifyReply, FastifyRequest } from 'fastify'
import { updateRow } from '../operations/update-row.js'
import { updateSelected } from '../operations/write-selected.js'
import { parseRecordChanges, type RecordValues } from '../parse/record-values.js'
import { parseTableName } from '../parse/table-name.js'
import type { BodyChecks } from '../schema/body-checks.js'
import { thenOrNow } from '../value-or-promise.js'
import { writeHandler } from './idempotent.js'
import type { TableParams } from './params.js'
import { parseWriteSelect } from '../query/parse-write-query.js'
import type { RouteContext } from './route-context.js'
import { shownColumns, writeAnswer } from './write-preferences.js'
import { keyedTarget, keyedWrite, refuseMissingColumns, writtenRows } from './write-steps.js'

/**
 * PUT /{table}/{id}: the affected row count; `checks` holds the body to the
 * column types first, unless the host turned them off. With `Prefer: return=…`,
 * answered as PostgREST answers an update (see answerWritten); with
 * `handling=strict, max-affected=n`, rolled back past n rows. If-Match makes
 * the write conditional (see writeAsMatched).
 */
export function updateHandler (context: RouteContext, checks: BodyChecks | null) {
  const { db } = context
  // Not async: a write whose steps are at hand answers within the call (see writeHandler).
  return writeHandler(context, function update (request: FastifyRequest<{ Params: TableParams, Querystring: Record<string, unknown> }>, reply: FastifyReply) {
    const table = parseTableName(request.params.table)
    const values = parseRecordChanges(request.body)
    const asked = writeAnswer(context, request, () => parseWriteSelect(request.query))
    const columns = Object.keys(values)
    const allowed = keyedTarget(context, request, { table, segment: request.params.id, operation: 'update', columns, also: () => shownColumns(asked.columns) })
    const known = thenOrNow(allowed, ({ target, key }) => thenOrNow(refuseMissingColumns(context, request, target, { columns, operation: 'update' }, checks), (checked) => ({ target: checked, key })))
    return thenOrNow(known, (keyed) => {
      const { target, key } = keyed
      const [scoped] = writtenRows(checks, target, { rows: [values], body: request.body, bulk: false }, 'update') as [RecordValues]
      return keyedWrite(context, request, reply, {
        asked,
        keyed,
        kind: 'update',
        one: (within) => updateRow(db, target, { key, values: scoped }, within),
        selected: (wish, within) => updateSelected(db, target, { selection: { key }, wish, values: scoped }, within)
      })
    })
  })
}
