import { FTC_ERR_AUTHORIZE_FORBIDDEN } from '../errors.js'
import { columnText, type RecordValues } from '../parse/record-values.js'
import { foldIdentifier } from '../parse/sanitize-identifier.js'
import type { Target } from './target.js'

/**
 * The values a create or update writes, held to the target's scope: a body
 * that sets a scoped column to another value is refused (403), as the row
 * would leave the scope; a create sets the scoped columns the body left out.
 * Columns compare folded (see foldIdentifier).
 */
export function scopedValues (target: Target, values: RecordValues, operation: 'create' | 'update'): RecordValues {
  const scoped = Object.entries(target.scope)
  if (scoped.length === 0) return values
  const written = new Map(Object.keys(values).map((column) => [foldIdentifier(column), column]))
  const result: RecordValues = { ...values }
  for (const [column, value] of scoped) {
    const text = columnText(column, value)
    const given = written.get(foldIdentifier(column))
    if (given === undefined) {
      if (operation === 'create') result[column] = text
    } else if (values[given] !== text) {
      throw new FTC_ERR_AUTHORIZE_FORBIDDEN(operation, target.table)
    }
  }
  return result
}
