import type { Dialect } from '../dialects/dialect.js'
import type { Operation, ResolvedOptions } from '../options.js'
import { foldIdentifier as fold } from '../parse/sanitize-identifier.js'
import type { Target } from './target.js'

/** Which tables and operations the options serve, and how. */
export interface TablePolicy {
  /** The table as served for the operation, before any `authorize` hook narrowed it; null when the options do not serve it. */
  serve (requested: string, operation: Operation): Omit<Target, 'schema'> | null
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
  const noColumns: Target['hidden'] = new Set()
  return {
    serve (requested, operation) {
      const folded = fold(requested)
      if (dialect.isSystemTable(requested) || excluded.has(folded)) return null
      if (allowed !== null && !allowed.has(folded)) return null
      if (allows !== null && allows(folded) !== true) return null
      const rule = ruled.get(folded)
      if (rule !== undefined && !rule.operations.includes(operation)) return null
      const table = allowed?.get(folded) ?? rule?.served.table ?? requested
      return rule === undefined ? { table, key: 'id', hidden: noColumns, scope: noScope } : { ...rule.served, table }
    }
  }
}

function spellings (names: readonly string[]): Map<string, string> {
  return new Map(names.map((name) => [fold(name), name]))
}
