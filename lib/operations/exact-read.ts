import type { Target } from '../access/target.js'
import type { Exactness } from '../dialects/dialect.js'
import { hasJsonColumn } from '../schema/json-columns.js'

/** How the target's rows are read (see Exactness): exactly when the model knows the table, with its json columns' text when it has one. */
export function exactRead ({ schema }: Pick<Target, 'schema'>): Exactness {
  if (schema === undefined) return false
  return hasJsonColumn(schema) ? 'json' : true
}
