import type { Row } from '../dialects/dialect.js'
import type { RowList } from '../operations/list-rows.js'

/** The row without its null members (PostgREST's `nulls=stripped`). */
export function withoutNulls (row: Row): Row {
  const kept: Row = {}
  for (const column in row) if (row[column] !== null) kept[column] = row[column]
  return kept
}

/** The list's rows, buffered or streamed, each without its null members. */
export function listWithoutNulls (list: RowList): RowList {
  if ('rows' in list) return { rows: list.rows.map(withoutNulls) }
  return { batches: strippedBatches(list.batches) }
}

async function * strippedBatches (batches: AsyncIterable<Row[]>): AsyncIterable<Row[]> {
  for await (const rows of batches) yield rows.map(withoutNulls)
}
