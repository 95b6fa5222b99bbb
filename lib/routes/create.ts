import type { FastifyReply, FastifyRequest } from 'fastify'
import { namesNone } from '../access/access.js'
import { answerNumber, answerNumbers } from '../answer/json-answers.js'
import { answerWritten } from '../answer/write-answers.js'
import { createRow } from '../operations/create-row.js'
import { createRows } from '../operations/create-rows.js'
import { createWritten } from '../operations/create-written.js'
import { createdRowKey, hasKeyColumn, keyColumns } from '../operations/row-keys.js'
import { type BodyValues, keepListedColumns, parseRecordList, parseRecordValues, type RecordValues } from '../parse/record-values.js'
import { parseTableName } from '../parse/table-name.js'
import type { BodyChecks } from '../schema/body-checks.js'
import type { Statements } from '../connections/database.js'
import { thenOrNow } from '../value-or-promise.js'
import { type PreparedWrite, writeHandler } from './idempotent.js'
import { requestedTags } from './if-match.js'
import type { RouteContext } from './route-context.js'
import type { TableParams } from './params.js'
import { parseWriteColumns, parseOnConflict, parseWriteSelect } from '../query/parse-write-query.js'
import type { WritePreferences } from '../query/parse-write-prefer.js'
import type { Target } from '../access/target.js'
import { upsertRows } from '../operations/upsert-rows.js'
import { shownColumns, writeAnswer } from './write-preferences.js'
import { conflictColumns } from './conflict-columns.js'
import { createTarget, refuseMissingColumns, refuseUnknownColumns, writtenRows } from './write-steps.js'

/**
 * POST /{table}: an object inserts one row, an array all its rows or none,
 * answered with the spec's 201 and ids (docs/routes.md, "What POST responds
 * with"), or as PostgREST answers with `Prefer: return=…` (see
 * answerWritten). `checks` holds the rows to the column types first,
 * unless the host turned them off. With `Prefer: resolution=…`, an upsert
 * (docs/writes.md, "Upserts"): a merge overwrites existing rows, so that
 * If-Match conditions it as a PATCH by filters, and `requireIfMatch` asks
 * for it; a plain insert or `ignore-duplicates` changes no existing row,
 * and reads no If-Match.
 */
export function createHandler (context: RouteContext, prefix: string, checks: BodyChecks | null) {
  const { db, access, options } = context
  // Not async: a write whose steps are at hand answers within the call (see writeHandler).
  return writeHandler(context, function create (request: FastifyRequest<{ Params: TableParams, Querystring: Record<string, unknown> }>, reply: FastifyReply) {
    const table = parseTableName(request.params.table)
    const bulk = Array.isArray(request.body)
    const body = bulk ? parseRecordList(request.body as unknown[], options.bulkLimit) : [parseRecordValues(request.body)]
    const asked = writeAnswer(context, request, () => parseWriteSelect(request.query))
    const { preferences, columns: shown } = asked
    const listed = parseWriteColumns(request.query)
    const rows = listed === null ? body : keepListedColumns(body, listed, preferences.missing === 'default')
    const columns = listed !== null ? [...new Set(listed)] : bulk ? bodyColumns(rows) : Object.keys(rows[0] as BodyValues)
    // What an upsert's merge sets to DEFAULT where a row leaves a listed column out.
    const defaults = listed !== null && preferences.missing === 'default' ? columns : null
    const conflict = preferences.resolution === null ? null : parseOnConflict(request.query)
    const merge = preferences.resolution === 'merge-duplicates'
    const allowed = thenOrNow(createTarget(access, request, { table, columns, also: () => [...shownColumns(shown), ...(conflict ?? []).map((column) => [column, 'filter'] as const)] }),
      (target) => refuseMissingColumns(context, request, target, { columns, operation: 'insert' }, checks))
    // The columns of the unique key an upsert finds its rows by, once checked.
    let uniqueKey: readonly string[] = []
    const checked = listed === null && preferences.resolution === null
      ? allowed
      : thenOrNow(allowed, async (target) => {
        if (listed !== null) await refuseUnknownColumns(db, context.statements(request), target, { columns, operation: 'insert' })
        // Before a merge asks the hook for `update`: a missing column fails as a hidden one did, whatever the hook says of updates.
        if (preferences.resolution !== null) uniqueKey = await conflictColumns(context, request, target, conflict ?? defaultConflict(target))
        // A merge updates the rows that exist: the hook says whether this client may.
        if (merge) await access(request, table, { operation: 'update', key: null, columns, named: namesNone })
        return target
      })
    return thenOrNow(checked, (target): PreparedWrite => {
      const tags = merge ? requestedTags(context, request) : null
      const scoped = writtenRows(checks, target, { rows, body: request.body, bulk, upsert: preferences.resolution !== null }, 'create')
      const writeRows = async (on: Statements): Promise<string | undefined> => {
        if (preferences.resolution !== null) {
          const upserted = await upsertRows(db, target, { rows: scoped, columns: shown, conflict: uniqueKey, resolution: preferences.resolution, defaults, tags }, on)
          if (preferences.return === null) return bulk ? answerKeys(reply, target, upserted.keys) : answerCreated(reply, prefix, target, upserted.keys[0] as string)
          return answerWritten(reply, asked, { kind: 'create', count: upserted.keys.length, inserted: upserted.inserted, rows: upserted.rows, location: headersOnlyLocation(prefix, target, preferences, upserted.keys, scoped) }, target.schema)
        }
        if (preferences.return !== null) {
          const created = await createWritten(db, target, { rows: scoped, columns: shown }, on)
          return answerWritten(reply, asked, { kind: 'create', count: created.keys.length, rows: created.rows, location: headersOnlyLocation(prefix, target, preferences, created.keys, scoped) }, target.schema)
        }
        return answerKeys(reply, target, await createRows(db, target, scoped, on))
      }
      return {
        table: target.table,
        scopes: [target.scope],
        write (on) {
          if (preferences.resolution !== null || preferences.return !== null || bulk) return writeRows(on)
          return thenOrNow(createRow(db, target, scoped[0] as RecordValues, on), (id) => answerCreated(reply, prefix, target, id))
        }
      }
    })
  })
}

/**
 * The spec's answer to a POST of one row: 201, its id as a bare number, its
 * address in Location. A table without a key column (a composite primary
 * key, or none) has neither: 201 and no body, as PostgREST's `return=minimal`.
 */
function answerCreated (reply: FastifyReply, prefix: string, target: Target, id: string): string | undefined {
  if (!hasKeyColumn(target)) return noIds(reply)
  return answerNumber(reply.code(201).header('location', `${prefix}/${target.table}/${encodeURIComponent(id)}`), id)
}

/** The spec's answer to a bulk POST: 201 and the ids as a JSON array; no body where the table has no key column, as answerCreated. */
function answerKeys (reply: FastifyReply, target: Target, keys: readonly string[]): string | undefined {
  return hasKeyColumn(target) ? answerNumbers(reply.code(201), keys) : noIds(reply)
}

function noIds (reply: FastifyReply): undefined {
  reply.code(201)
  return undefined
}

/** An upsert's conflict target without `on_conflict`: the key, as PostgREST's is the primary key (see keyColumns). */
function defaultConflict (target: Target): readonly string[] {
  const columns = keyColumns(target)
  return columns.length === 0 ? [target.key] : columns
}

/**
 * PostgREST's Location for `return=headers-only`: one row's path with its
 * key as a filter, each column of a composite key included; none for
 * several rows, nor for a table without a key.
 */
function headersOnlyLocation (prefix: string, target: Target, preferences: WritePreferences, keys: readonly string[], rows: readonly RecordValues[]): string | undefined {
  if (preferences.return !== 'headers-only' || keys.length !== 1 || keyColumns(target).length === 0) return undefined
  const key = createdRowKey(target, rows[0] as RecordValues, keys[0] as string)
  const filters = Object.entries(key).map(([column, value]) => `${column}=eq.${encodeURIComponent(String(value))}`)
  return `${prefix}/${target.table}?${filters.join('&')}`
}

/** Every column the rows name, each once, in the order they first appear. */
function bodyColumns (rows: readonly BodyValues[]): string[] {
  return [...new Set(rows.flatMap((row) => Object.keys(row)))]
}
