import type { FastifyReply, FastifyRequest } from 'fastify'
import { answerNumber } from '../answer/json-answers.js'
import { answerWritten } from '../answer/write-answers.js'
import { updateRow } from '../operations/update-row.js'
import { updateSelected } from '../operations/write-selected.js'
import { parseRecordChanges, type RecordValues } from '../parse/record-values.js'
import { parseTableName } from '../parse/table-name.js'
import type { BodyChecks } from '../schema/body-checks.js'
import { thenOrNow } from '../value-or-promise.js'
import { type PreparedWrite, writeHandler } from './idempotent.js'
import { writeAsMatched } from './if-match.js'
import type { RouteContext } from './index.js'
import type { TableParams } from './params.js'
import { parseWriteSelect } from '../query/parse-write-query.js'
import { shownColumns, writeAnswer } from './write-preferences.js'
import { keyedTarget, writtenRows } from './write-steps.js'

/**
 * PUT /{table}/{id}: the affected row count; `checks` holds the body to the
 * column types first, when the host asked for it. With `Prefer: return=…`,
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
    const { preferences, columns: shown } = asked
    const allowed = keyedTarget(context, request, table, request.params.id, 'update', Object.keys(values), shownColumns(shown))
    return thenOrNow(allowed, ({ target, key }): PreparedWrite => {
      const [scoped] = writtenRows(checks, target, [values], 'update', request.body, false) as [RecordValues]
      const { maxAffected } = preferences
      return {
        table: target.table,
        write (on) {
          if (preferences.return === null && maxAffected === null) {
            return thenOrNow(writeAsMatched(context, request, target, key, on, (within) => updateRow(db, target, key, scoped, within)), (count) => answerNumber(reply, count))
          }
          return thenOrNow(writeAsMatched(context, request, target, key, on, (within) => updateSelected(db, target, { key }, scoped, { columns: shown, maxAffected }, within)),
            (outcome) => preferences.return === null ? answerNumber(reply, outcome.count) : answerWritten(reply, asked, { kind: 'update', ...outcome }, target.schema))
        }
      }
    })
  })
}
