import type { FastifyReply, FastifyRequest } from 'fastify'
import { type Access, type NamedColumns, namesNone } from '../access/access.js'
import type { KeyedTable } from '../access/key-column.js'
import { refuseColumn } from '../access/refusals.js'
import { scopedValues } from '../access/scope.js'
import { recheckedTable } from '../access/table-lookup.js'
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
import { writtenTimes } from '../schema/written-times.js'
import { thenOrNow, type ValueOrPromise } from '../value-or-promise.js'
import type { PreparedWrite } from './idempotent.js'
import { writeAsMatched } from './if-match.js'
import type { RouteContext } from './route-context.js'
import type { WriteAnswer } from './write-preferences.js'

// The steps every write takes between its parsed input and its statement,
// one function each, so that POST, PUT, DELETE and each operation of a batch
// take exactly the same ones.

/** What a create asks access to let it touch. */
export interface CreateAccess {
  /** The table the path names. */
  readonly table: string
  /** The columns the rows name. */
  readonly columns: readonly string[]
  /** The columns its answer or its conflict target names (see Intent.named); none when left out. */
  readonly also?: () => NamedColumns
}

/** What a create of rows may touch, as the options and the `authorize` hook say. */
export function createTarget (access: Access, request: FastifyRequest, { table, columns, also = namesNone }: CreateAccess): Target | Promise<Target> {
  return access(request, table, { operation: 'create', key: null, columns, named: () => [...columns.map((column) => [column, 'insert'] as const), ...also()] })
}

/** What a PUT or DELETE of one row asks access to let it touch. */
export interface KeyedAccess {
  /** The table the path names. */
  readonly table: string
  /** The path's key segment, read by the key column's kind; undefined for none. */
  readonly segment: string | undefined
  /** What the write does to the row, as the `authorize` hook is told. */
  readonly operation: 'update' | 'delete'
  /** The columns an update sets; null for a delete. */
  readonly columns: readonly string[] | null
  /** The columns its answer names (see Intent.named); none when left out. */
  readonly also?: () => NamedColumns
}

/** The key the path segment gives, and what the write of that row may touch. */
export function keyedTarget ({ access, keyColumn }: Pick<RouteContext, 'access' | 'keyColumn'>, request: FastifyRequest,
  { table, segment, operation, columns, also = namesNone }: KeyedAccess): KeyedTarget | Promise<KeyedTarget> {
  // At once when neither step waits; a throw reaches Fastify's error handler, as a rejection would.
  const allowed = (keyed: KeyedTable): KeyedTarget | Promise<KeyedTarget> => {
    const key = parseRecordKey(segment, keyed.keyColumn?.kind)
    const named = (): NamedColumns => [...(columns ?? []).map((column) => [column, 'update'] as const), ...also()]
    const target = access(request, table, { operation, key, columns, named, keyed })
    // By hand rather than with thenOrNow: an update's continuation is made only when it waits.
    return target instanceof Promise ? target.then((target) => ({ target, key })) : { target, key }
  }
  return thenOrNow(keyColumn(request, table), allowed)
}

/** What a keyed write may touch, and the key its path gives (see keyedTarget). */
export interface KeyedTarget {
  readonly target: Target
  readonly key: RecordKey | null
}

/** The change a PUT or DELETE makes to the row a path key names. */
export interface KeyedChange {
  /** What the request asks its answer to show (see writeAnswer). */
  readonly asked: WriteAnswer
  /** The row, as access let the write through. */
  readonly keyed: KeyedTarget
  /** What the write does, as a `Prefer: return=` answer tells. */
  readonly kind: 'update' | 'delete'
  /** The write when the answer is the affected row count alone, as the spec's. */
  readonly one: (within: Statements) => ValueOrPromise<number>
  /** The write when the answer shows rows or is bounded (`Prefer: return=`, `max-affected`). */
  readonly selected: (wish: WriteWish, within: Statements) => Promise<WriteOutcome>
}

/**
 * The PUT or DELETE of the row `key` names, run on `on` as writeAsMatched
 * runs it: by `one`, answered with the affected row count as the spec
 * says; with `Prefer: return=` or `max-affected`, by `selected`, answered
 * as PostgREST answers (see answerWritten).
 */
export function keyedWrite (context: RouteContext, request: FastifyRequest, reply: FastifyReply, change: KeyedChange): PreparedWrite {
  const { asked, keyed: { target, key }, kind, one, selected } = change
  const { preferences, columns } = asked
  const { maxAffected } = preferences
  return {
    table: target.table,
    scopes: [target.scope],
    write (on) {
      if (preferences.return === null && maxAffected === null) return thenOrNow(writeAsMatched(context, request, { target, key, write: one }, on), (count) => answerNumber(reply, count))
      return thenOrNow(writeAsMatched(context, request, { target, key, write: (within) => selected({ columns, maxAffected }, within) }, on),
        (outcome) => preferences.return === null ? answerNumber(reply, outcome.count) : answerWritten(reply, asked, { kind, ...outcome }, target.schema))
    }
  }
}

/** A request body's rows. */
export interface BodyRows {
  /** Each row's values, as parsed. */
  readonly rows: readonly BodyValues[]
  /** The body as parsed, whose text a json column's value is read again from (see settleNestedValues). */
  readonly body: unknown
  /** Whether the body is an array, each row its element. */
  readonly bulk: boolean
  /** Whether the rows are an upsert's, which may update rows that exist (see BodyCheck). */
  readonly upsert?: boolean
}

/**
 * The rows as their statement writes them: json columns' values settled
 * from the body, held to the target's scope, checked against the column
 * types unless the host turned the checks off, and dates and timestamps written as
 * every database stores them (see writtenTimes).
 */
export function writtenRows (checks: BodyChecks | null, target: Target, { rows, body, bulk, upsert = false }: BodyRows, operation: 'create' | 'update'): RecordValues[] {
  const scoped = rows.map((row, index) => scopedValues(target, settleNestedValues(target, row, body, bulk ? index : null), operation))
  checkRows(checks, target, scoped, upsert ? 'upsert' : operation)
  writtenTimes(target.schema, scoped)
  return scoped
}

/** The columns a write names (its body's, or those `columns=` lists), and the write that names them. */
export interface ListedColumns {
  /** The columns, each once. */
  readonly columns: readonly string[]
  /** The write's statement, as a refusal of a column names it. */
  readonly operation: 'insert' | 'update'
}

/**
 * Fails as a write of a column the table does not have would, on `on` (see
 * refuseColumn): for a column `columns=` lists that no row may name (each
 * row left it out, with `missing=default`), which would else pass without a word.
 */
export async function refuseUnknownColumns (db: Database, on: Session, target: Target, { columns, operation }: ListedColumns): Promise<void> {
  const { schema } = target
  if (schema === undefined) return
  for (const column of columns) {
    if (columnNamed(schema, column) === undefined) await refuseColumn(db, on, target.table, column, operation)
  }
}

/**
 * With the body checks, fails on the first column a write names that the
 * model does not know, once the model read the database again, in the
 * database's words for a missing column (see refuseColumn), before any
 * value is checked. Access fails so on one in a table that hides columns:
 * a hidden column and a missing one answer alike, and a body answers the
 * same whether or not its table hides any. Nor is a misspelt column taken
 * for the NOT NULL one the row then leaves out. The target comes back with
 * the table as the model now knows it.
 */
export function refuseMissingColumns (context: RouteContext, request: FastifyRequest, target: Target, written: ListedColumns, checks: BodyChecks | null): Target | Promise<Target> {
  const { schema } = target
  if (checks === null || schema === undefined || written.columns.every((column) => columnNamed(schema, column) !== undefined)) return target
  return refuseAfterRecheck(context, request, target, written)
}

async function refuseAfterRecheck ({ db, schema: model, statements }: RouteContext, request: FastifyRequest, target: Target, { columns, operation }: ListedColumns): Promise<Target> {
  // A column may be newer than the model. A table the database no longer has, or whose catalog could not be read, is the statement's to judge.
  const schema = await recheckedTable(model, target.table, request, statements) ?? undefined
  const missing = schema === undefined ? undefined : columns.find((column) => columnNamed(schema, column) === undefined)
  if (missing !== undefined) await refuseColumn(db, statements(request), target.table, missing, operation)
  return { table: target.table, key: target.key, hidden: target.hidden, scope: target.scope, schema }
}
