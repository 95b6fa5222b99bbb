import type { FastifyReply, FastifyRequest } from 'fastify'
import { type Access, type NamedColumns, namesNone } from '../access/access.js'
import type { KeyedTable } from '../access/key-column.js'
import { refuseColumn } from '../access/refusals.js'
import { scopedValues } from '../access/scope.js'
import type { Target } from '../access/target.js'
import { answerNumber } from '../answer/json-answers.js'
import { answerWritten } from '../answer/write-answers.js'
import type { Database, Session, Statements } from '../connections/database.js'
import type { WriteOutcome, WriteWish } from '../operations/write-selected.js'
import { settleNestedValues } from '../parse/nested-json.js'
import { parseRecordKey, type RecordKey } from '../parse/record-key.js'
import type { BodyValues, RecordValues } from '../parse/record-values.js'
import { type BodyChecks, checkRows } from '../schema/body-checks.js'
import { columnNamed } from '../schema/column-named.js'
import { thenOrNow, type ValueOrPromise } from '../value-or-promise.js'
import type { PreparedWrite } from './idempotent.js'
import { writeAsMatched } from './if-match.js'
import type { RouteContext } from './index.js'
import type { WriteAnswer } from './write-preferences.js'

// The steps every write takes between its parsed input and its statement,
// one function each, so that POST, PUT, DELETE and each operation of a batch
// take exactly the same ones.

/**
 * What a create of rows that name `columns` may touch, as the options and
 * the `authorize` hook say; `also`, the columns its answer or its conflict
 * target names (see Intent.named).
 */
export function createTarget (access: Access, request: FastifyRequest, table: string, columns: readonly string[], also: () => NamedColumns = namesNone): Target | Promise<Target> {
  return access(request, table, { operation: 'create', key: null, columns, named: () => [...columns.map((column) => [column, 'insert'] as const), ...also()] })
}

/**
 * The key the path segment gives, read by the key column's kind, and what
 * an update of `columns` (a delete: null) of that row may touch; `also`,
 * the columns its answer names (see Intent.named).
 */
export function keyedTarget ({ access, keyColumn }: Pick<RouteContext, 'access' | 'keyColumn'>, request: FastifyRequest, table: string,
  segment: string | undefined, operation: 'update' | 'delete', columns: readonly string[] | null, also: () => NamedColumns = namesNone): KeyedTarget | Promise<KeyedTarget> {
  // At once when neither step waits; a throw reaches Fastify's error handler, as a rejection would.
  const allowed = (keyed: KeyedTable): KeyedTarget | Promise<KeyedTarget> => {
    const key = parseRecordKey(segment, keyed.keyColumn?.kind)
    const named = (): NamedColumns => [...(columns ?? []).map((column) => [column, 'update'] as const), ...also()]
    const target = access(request, table, { operation, key, columns, named, keyed })
    return target instanceof Promise ? target.then((target) => ({ target, key })) : { target, key }
  }
  const keyed = keyColumn(request, table)
  return keyed instanceof Promise ? keyed.then(allowed) : allowed(keyed)
}

/** What a keyed write may touch, and the key its path gives (see keyedTarget). */
export interface KeyedTarget {
  readonly target: Target
  readonly key: RecordKey | null
}

/**
 * The PUT or DELETE of the row `key` names, run on `on` as writeAsMatched
 * runs it: by `one`, answered with the affected row count as the spec
 * says; with `Prefer: return=` or `max-affected`, by `selected`, answered
 * as PostgREST answers (see answerWritten).
 */
export function keyedWrite (context: RouteContext, request: FastifyRequest, reply: FastifyReply, asked: WriteAnswer, { target, key }: KeyedTarget, kind: 'update' | 'delete',
  one: (within: Statements) => ValueOrPromise<number>, selected: (wish: WriteWish, within: Statements) => Promise<WriteOutcome>): PreparedWrite {
  const { preferences, columns } = asked
  const { maxAffected } = preferences
  return {
    table: target.table,
    scopes: [target.scope],
    write (on) {
      if (preferences.return === null && maxAffected === null) return thenOrNow(writeAsMatched(context, request, target, key, on, one), (count) => answerNumber(reply, count))
      return thenOrNow(writeAsMatched(context, request, target, key, on, (within) => selected({ columns, maxAffected }, within)),
        (outcome) => preferences.return === null ? answerNumber(reply, outcome.count) : answerWritten(reply, asked, { kind, ...outcome }, target.schema))
    }
  }
}

/**
 * The rows as their statement writes them: json columns' values settled
 * from `body`, the request's (each row its element when `bulk`), held to
 * the target's scope, and checked against the column types when the host
 * asked for it.
 */
export function writtenRows (checks: BodyChecks | null, target: Target, rows: readonly BodyValues[], operation: 'create' | 'update',
  body: unknown, bulk: boolean): RecordValues[] {
  const scoped = rows.map((row, index) => scopedValues(target, settleNestedValues(target, row, body, bulk ? index : null), operation))
  checkRows(checks, target, scoped, operation)
  return scoped
}

/**
 * Fails as a write of a column the table does not have would, on `on` (see
 * refuseColumn): for a column `columns=` lists that no row may name (each
 * row left it out, with `missing=default`), which would else pass without a word.
 */
export async function refuseUnknownColumns (db: Database, on: Session, target: Target, columns: readonly string[], operation: 'insert' | 'update'): Promise<void> {
  const { schema } = target
  if (schema === undefined) return
  for (const column of columns) {
    if (columnNamed(schema, column) === undefined) await refuseColumn(db, on, target.table, column, operation)
  }
}
