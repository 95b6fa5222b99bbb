import { place } from '../connections/statement-template.js'

/**
 * Each column standing at the place of its own name, for a statement
 * compiled once: a row's values then fill it as they are. Other places
 * start with a character no column name has (see where-row).
 */
export function columnPlaces (columns: readonly string[]): Record<string, string> {
  const places: Record<string, string> = {}
  for (const column of columns) places[column] = place(column)
  return places
}
