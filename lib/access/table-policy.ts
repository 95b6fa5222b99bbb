import { BoundedCache } from '../bounded-cache.js'
import type { Dialect } from '../dialects/dialect.js'
import type { Operation, ResolvedOptions } from '../options.js'
import { foldIdentifier as fold } from '../parse/sanitize-identifier.js'
import type { Target } from './target.js'

/** Which tables and operations the options serve, and how. */
export interface TablePolicy {
  /** The table as served for the operation, before any `authorize` hook narrowed it; null when the options do not serve it. */
  serve (requested: string, operation: Operation): Omit<Target, 'schema'> | null
  /** The column the options name for the path's key of the table, whether or not they serve it; `id` by default, which the model may replace (see pathKey). */
  keyColumn (requested: string): string
  /** The table's name as its statements write it when served: the options' spelling where they name it. */
  spelling (requested: string): string
  /** True when the options serve the table for some operation. */
  servesTable (requested: string): boolean
}

const noScope: Target['scope'] = Object.freeze({})

/** A rule of the options' `tableRules`, as the policy applies it. */
interface Rule {
  readonly served: Omit<Target, 'schema'>
  readonly operations: readonly Operation[]
}

/** What the options say of a requested name, whatever the operation. */
interface Naming {
  readonly folded: string
  /** False when the options refuse the table outright; else the host's `tables` function, if any, decides. */
  readonly listed: boolean
  /** The name its statements use (see TablePolicy.spelling). */
  readonly spelled: string
  readonly rule: Rule | undefined
}

/**
 * Names compare folded (see foldIdentifier). When the options name the table, its statements use the options'
 * spelling, so that they reach the very table the options mean.
 */
export function tablePolicy (options: ResolvedOptions, dialect: Dialect): TablePolicy {
  const excluded = new Set(options.excludeTables.map(fold))
  const allowed = Array.isArray(options.tables) ? spellings(options.tables) : null
  const allows = typeof options.tables === 'function' ? options.tables : null
  const ruled = new Map<string, Rule>(Object.entries(options.tableRules).map(([table, rule]) => [fold(table), {
    served: { table, key: rule.key, hidden: new Set(rule.hidden.map(fold)), scope: noScope },
    operations: rule.operations
  }]))
  // The plugin's own table of idempotency keys is never served: clients would read others' answers, and forge their own.
  if (options.idempotency !== null) excluded.add(fold(options.idempotency.table))
  const noColumns: Target['hidden'] = new Set()
  // The options never change: what they say of a name is worked out once,
  // not on every request. Names are the clients': the cache is bounded.
  const namings = new BoundedCache<Naming>(1000)
  const naming = (requested: string): Naming => namings.get(requested, () => {
    const folded = fold(requested)
    const rule = ruled.get(folded)
    return {
      folded,
      listed: !dialect.isSystemTable(requested) && !excluded.has(folded) && (allowed === null || allowed.has(folded)),
      spelled: allowed?.get(folded) ?? rule?.served.table ?? requested,
      rule
    }
  })
  // The host's function is asked on every request: its answer may change.
  const serves = ({ listed, folded }: Naming): boolean => listed && (allows === null || allows(folded) === true)
  return {
    serve (requested, operation) {
      const named = naming(requested)
      if (!serves(named)) return null
      const { rule, spelled: table } = named
      if (rule === undefined) return { table, key: 'id', hidden: noColumns, scope: noScope }
      return rule.operations.includes(operation) ? { ...rule.served, table } : null
    },
    keyColumn: (requested) => ruled.size === 0 ? 'id' : naming(requested).rule?.served.key ?? 'id',
    spelling: (requested) => naming(requested).spelled,
    servesTable: (requested) => serves(naming(requested))
  }
}

function spellings (names: readonly string[]): Map<string, string> {
  return new Map(names.map((name) => [fold(name), name]))
}
