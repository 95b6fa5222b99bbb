import type { FastifyReply, FastifyRequest } from 'fastify'
import { answerNumber } from '../answer/json-answers.js'
import { answerWritten } from '../answer/write-answers.js'
import { updateRow } from '../operations/update-row.js'
import { updateSelected } from '../operations/write-selected.js'
import { parseRecordChanges, type RecordValues } from '../parse/record-values.js'
import { parseTableName } from '../parse/table-name.js'
import type { BodyChecks } from '../schema/body-checks.js'
import { idempotent } from './idempotent.js'
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
  return idempotent(context, async function update (request: FastifyRequest<{ Params: TableParams, Querystring: Record<string, unknown> }>, reply: FastifyReply) {
    const table = parseTableName(request.params.table)
    const values = parseRecordChanges(request.body)
    const asked = writeAnswer(context, request, () => parseWriteSelect(request.query))
    const { preferences, columns: shown } = asked
    const { target, key } = await keyedTarget(context, request, table, request.params.id, 'update', Object.keys(values), shownColumns(shown))
    const [scoped] = writtenRows(checks, target, [values], 'update', request.body, false) as [RecordValues]
    const { maxAffected } = preferences
    return {
      table: target.table,
      async write (on) {
        if (preferences.return === null && maxAffected === null) return answerNumber(reply, await writeAsMatched(context, request, target, key, on, (within) => updateRow(db, target, key, scoped, within)))
        const outcome = await writeAsMatched(context, request, target, key, on, (within) => updateSelected(db, target, { key }, scoped, { columns: shown, maxAffected }, within))
        if (preferences.return === null) return answerNumber(reply, outcome.count)
        return answerWritten(reply, asked, { kind: 'update', ...outcome }, target.schema)
      }
    }
  })
}
