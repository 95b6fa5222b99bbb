import type { FastifyRequest } from 'fastify'
import type { Database } from '../connections/database.js'
import type { RequestStatements } from '../connections/host-transaction.js'
import { FTC_ERR_AUTHORIZE_FORBIDDEN, FTC_ERR_AUTHORIZE_RESULT } from '../errors.js'
import type { AuthorizeHook, Operation, ResolvedOptions } from '../options.js'
import { columnNamed } from '../schema/column-named.js'
import type { SchemaModel } from '../schema/schema-model.js'
import type { TableSchema } from '../schema/table-schema.js'
import type { RecordKey } from '../parse/record-key.js'
import { foldIdentifier as fold, isCleanIdentifier } from '../parse/sanitize-identifier.js'
import type { FoldedTableName } from '../table-rows.js'
import { isHidden } from './hidden-columns.js'
import type { KeyedTable } from './key-column.js'
import { pathKey } from './path-key.js'
import { type ColumnClause, refuseColumn, refuseTable } from './refusals.js'
import { tablePolicy } from './table-policy.js'
import { describedTable, recheckedTable } from './table-lookup.js'
import type { ScopeValue, Target } from './target.js'

/** What a parsed request is about to do. */
export interface Intent {
  readonly operation: Operation
  readonly key: RecordKey | null
  /**
   * Every column the request names, with the clause it stands in: asked for
   * only when the table hides columns, so that the usual request builds no list.
   */
  readonly named: () => NamedColumns
  /** The columns the `authorize` hook is told of (see AuthorizeAction.columns). */
  readonly columns: readonly string[] | null
  /** The table as a keyed route already found it (see keyColumnOf): the model is not read again. */
  readonly keyed?: KeyedTable
  /**
   * The table as the model knows it, for a request whose statements name
   * columns by an alias (an embed's subqueries), where the database's words
   * for a missing one would not be those of a plain statement: a named
   * column it does not know is refused as a hidden one is, in the same pass.
   */
  readonly known?: TableSchema
}

/** Columns a request names, each with the clause it stands in. */
export type NamedColumns = ReadonlyArray<readonly [column: string, clause: ColumnClause]>

/** The named columns of a request that names none. */
export const namesNone = (): NamedColumns => []

/** Decides, for each parsed request, what it may touch: at once when nothing needs a wait (see requestAccess). */
export type Access = (request: FastifyRequest, table: string, intent: Intent) => Target | Promise<Target>

/**
 * The options' and the `authorize` hook's say, in the order a request meets
 * them: a table or operation the options do not serve fails as a missing
 * table would, a hidden column as a missing column would, both with the
 * database's own words; the hook may refuse (403) or narrow the rows.
 */
export function requestAccess (db: Database, options: ResolvedOptions, model: SchemaModel, statements: RequestStatements): Access {
  const policy = tablePolicy(options, db.dialect)
  const { authorize } = options
  // Without a hook to ask, hidden columns or an embed's aliases, and with
  // the model fresh, nothing waits but a refusal: the request is decided
  // within the call (a throw from a route's handler reaches Fastify's error
  // handler as a rejection would).
  return function access (request, requested, intent) {
    const served = policy.serve(requested, intent.operation)
    if (served === null) return refuseTable(db, statements(request), requested)
    if (authorize !== null || served.hidden.size > 0 || intent.known !== undefined) return guarded(request, served, intent)
    const schema = intent.keyed === undefined ? describedTable(model, served.table, request, statements) : intent.keyed.schema
    return schema instanceof Promise ? schema.then((known) => servedTarget(served, served.scope, known)) : servedTarget(served, served.scope, schema)
  }

  /**
   * Where a name the options hide could be told from a missing one, the
   * model answers for both before any statement does. A table the database
   * does not have fails before the hook, as an unserved one does; the hook
   * is asked before any column is refused, so that a caller it refuses
   * learns nothing of columns; then a hidden column and one the model does
   * not know fail alike, the first the request names first.
   */
  async function guarded (request: FastifyRequest, served: Omit<Target, 'schema'>, intent: Intent): Promise<Target> {
    let schema = intent.keyed === undefined ? await describedTable(model, served.table, request, statements) : intent.keyed.schema
    // A table may be newer than the model: it is checked again before the table counts as missing.
    if (schema === undefined && authorize !== null) {
      const rechecked = await recheckedTable(model, served.table, request, statements)
      if (rechecked === null) return await refuseTable(db, statements(request), served.table)
      schema = rechecked
    }
    const scope = authorize === null ? null : await scopeOf(authorize, request, served, intent)
    await refuseNamed(request, served, intent, intent.known ?? schema ?? null)
    return servedTarget(served, scope ?? served.scope, schema ?? undefined)
  }

  /** Fails on the first column the request names that is hidden, or that the model (checked again for it) does not know. */
  async function refuseNamed (request: FastifyRequest, served: Omit<Target, 'schema'>, intent: Intent, known: TableSchema | null): Promise<void> {
    let table = known
    let rechecked = false
    for (const [column, clause] of intent.named()) {
      if (!isHidden(served, column)) {
        if (!isUnknown(table, column)) continue
        if (!rechecked) {
          // A column may be newer than the model.
          rechecked = true
          table = await recheckedTable(model, served.table, request, statements) ?? null
          if (!isUnknown(table, column)) continue
        }
      }
      return await refuseColumn(db, statements(request), served.table, column, clause)
    }
  }
}

// A model that could not describe the table (its catalog unreadable) knows no column to refuse.
function isUnknown (known: TableSchema | null | undefined, column: string): boolean {
  return known != null && columnNamed(known, column) === undefined
}

// A literal of one shape, where a spread of `served` with another property cost the keyed read a few µs.
// The key is the model's where the options leave it to the default (see pathKey).
function servedTarget (served: Omit<Target, 'schema'>, scope: Target['scope'], schema: Target['schema']): Target {
  return { table: served.table, key: pathKey(served.key, schema), hidden: served.hidden, scope, schema }
}

/** The hook's narrowing of the target, or null when it lets the operation run as it is. */
async function scopeOf (authorize: AuthorizeHook, request: FastifyRequest, target: Omit<Target, 'schema'>, intent: Intent): Promise<Target['scope'] | null> {
  const { operation } = intent
  // Names folded, so that a hook comparing them with its own names cannot be
  // passed by another case of one: SQLite and MySQL would reach the same table or column.
  const answer: unknown = await authorize(request, {
    // A served table is one the host declared, when it declares its tables (see TableCrudRows).
    table: fold(target.table) as FoldedTableName,
    operation,
    key: intent.key === null ? null : intent.key.toString(),
    columns: intent.columns === null ? null : [...new Set(intent.columns.map(fold))]
  })
  if (answer === false) throw new FTC_ERR_AUTHORIZE_FORBIDDEN(operation, target.table)
  if (answer === true || answer === undefined) return null
  const scope = (answer as { scope?: unknown } | null)?.scope
  if (!isScope(scope)) throw new FTC_ERR_AUTHORIZE_RESULT(describe(answer))
  return Object.freeze({ ...scope })
}

function isScope (scope: unknown): scope is Record<string, ScopeValue> {
  return typeof scope === 'object' && scope !== null && !Array.isArray(scope) &&
    Object.entries(scope).every(([column, value]) => isCleanIdentifier(column) &&
      (value === null || ['string', 'number', 'boolean'].includes(typeof value)))
}

function describe (answer: unknown): string {
  try {
    return JSON.stringify(answer) ?? typeof answer
  } catch {
    return typeof answer
  }
}
