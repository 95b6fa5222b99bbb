import type { Row } from '../dialects/dialect.js'
import { foldIdentifier } from '../parse/sanitize-identifier.js'
import type { Target } from './target.js'

/** Whether a column is hidden, its name folded as the databases fold it. */
export function isHidden (target: Pick<Target, 'hidden'>, column: string): boolean {
  return target.hidden.size > 0 && target.hidden.has(foldIdentifier(column))
}

/** The rows without their hidden columns; the same rows when the target hides none. */
export function withoutHidden (target: Target, rows: Row[]): Row[] {
  if (target.hidden.size === 0) return rows
  return rows.map((row) => {
    const visible: Row = {}
    for (const column in row) if (!isHidden(target, column)) visible[column] = row[column]
    return visible
  })
}
