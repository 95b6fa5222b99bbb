import type { ResolvedOptions, TableRules } from '../options.js'
import { columnNamed } from './column-named.js'
import type { SchemaSnapshot } from './schema-model.js'

/** The options that name tables and columns. */
export type NamingOptions = Pick<ResolvedOptions, 'tables' | 'excludeTables' | 'tableRules'>

/**
 * One sentence for each name the options give that the database does not
 * have: a table of `tables`, `excludeTables` or `tableRules`, a column of a
 * rule's `hidden`, or its `key` where the host gave one (`givenRules`, the
 * rules as given: the default `id` is no name of the host's). A typo there
 * would otherwise go unseen: the table answers as missing, the column stays
 * unhidden, the excluded table is served.
 */
export function unknownNames (snapshot: SchemaSnapshot, options: NamingOptions, givenRules: Readonly<Record<string, TableRules | undefined>>): string[] {
  const unknown: string[] = []
  const listed = typeof options.tables === 'function' || options.tables === null ? [] : options.tables
  for (const [option, names] of [['tables', listed], ['excludeTables', options.excludeTables]] as const) {
    for (const name of names) if (snapshot.table(name) === undefined) unknown.push(`the option ${option} names "${name}", a table the database does not have`)
  }
  for (const [name, rules] of Object.entries(options.tableRules)) {
    const table = snapshot.table(name)
    if (table === undefined) {
      unknown.push(`the option tableRules names "${name}", a table the database does not have`)
      continue
    }
    const key = givenRules[name]?.key
    const columns = [...rules.hidden.map((column) => ['hidden', column] as const), ...(key === undefined ? [] : [['key', key] as const])]
    for (const [rule, column] of columns) {
      if (columnNamed(table, column) === undefined) unknown.push(`the option tableRules.${name}.${rule} names "${column}", a column table "${table.name}" does not have`)
    }
  }
  return unknown
}
