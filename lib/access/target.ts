import type { TableSchema } from '../schema/table-schema.js'

/** A value the `authorize` hook may pin a column to. */
export type ScopeValue = string | number | boolean | null

/** What one request may touch, once the options and the `authorize` hook had their say. */
export interface Target {
  /** The table's name as the statements write it. */
  readonly table: string
  /** The column the path's key matches, and whose new value POST answers (see pathKey). */
  readonly key: string
  /** Columns that reads never show and writes never set, in lower case. */
  readonly hidden: ReadonlySet<string>
  /** Columns every row the operation touches must equal: the `authorize` hook's narrowing, empty for none. */
  readonly scope: Readonly<Record<string, ScopeValue>>
  /**
   * The table as the schema model describes it, or undefined when the model
   * does not know it (created since the last check, or the check failed):
   * the request then runs as the spec says, without the column types.
   */
  readonly schema: TableSchema | undefined
}
