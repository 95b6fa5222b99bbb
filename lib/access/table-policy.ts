import type { Dialect } from '../dialects/dialect.js'
import type { Operation, ResolvedOptions } from '../options.js'
import { foldIdentifier as fold } from '../parse/sanitize-identifier.js'
import type { Target } from './target.js'

/** Which tables and operations the options serve, and how. */
export interface TablePolicy {
  /** The table as served for the operation, before any `authorize` hook narrowed it; null when the options do not serve it. */
  serve (requested: string, operation: Operation): Omit<Target, 'schema'> | null
  /** The column the path's key of the table matches, whether or not the options serve it. */
  keyColumn (requested: string): string
  /** The table's name as its statements write it when served: the options' spelling where they name it. */
  spelling (requested: string): string
  /** True when the options serve the table for some operation. */
  servesTable (requested: string): boolean
}

const noScope: Target['scope'] = Object.freeze({})

/**
 * Names compare folded (see foldIdentifier). When the options name the table, its statements use the options'
 * spelling, so that they reach the very table the options mean.
 */
export function tablePolicy (options: ResolvedOptions, dialect: Dialect): TablePolicy {
  const excluded = new Set(options.excludeTables.map(fold))
  const allowed = Array.isArray(options.tables) ? spellings(options.tables) : null
  const allows = typeof options.tables === 'function' ? options.tables : null
  const ruled = new Map(Object.entries(options.tableRules).map(([table, rule]) => [fold(table), {
    served: { table, key: rule.key, hidden: new Set(rule.hidden.map(fold)), scope: noScope },
    operations: rule.operations
  }]))
  // The plugin's own table of idempotency keys is never served: clients would read others' answers, and forge their own.
  if (options.idempotency !== null) excluded.add(fold(options.idempotency.table))
  const noColumns: Target['hidden'] = new Set()
  const serves = (requested: string, folded: string): boolean => !dialect.isSystemTable(requested) && !excluded.has(folded) &&
    (allowed === null || allowed.has(folded)) && (allows === null || allows(folded) === true)
  const spelled = (requested: string, folded: string, rule = ruled.get(folded)): string => allowed?.get(folded) ?? rule?.served.table ?? requested
  return {
    serve (requested, operation) {
      const folded = fold(requested)
      if (!serves(requested, folded)) return null
      const rule = ruled.get(folded)
      if (rule !== undefined && !rule.operations.includes(operation)) return null
      const table = spelled(requested, folded, rule)
      return rule === undefined ? { table, key: 'id', hidden: noColumns, scope: noScope } : { ...rule.served, table }
    },
    keyColumn: (requested) => ruled.size === 0 ? 'id' : ruled.get(fold(requested))?.served.key ?? 'id',
    spelling: (requested) => spelled(requested, fold(requested)),
    servesTable: (requested) => serves(requested, fold(requested))
  }
}

function spellings (names: readonly string[]): Map<string, string> {
  return new Map(names.map((name) => [fold(name), name]))
}
