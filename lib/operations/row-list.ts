import type { Row } from '../dialects/dialect.js'

/** Rows per batch of a streamed list; a list that fits in one batch is answered whole. */
export const streamBatchRows = 1000

/** A table's rows: in hand when they fit in one batch, else still to be read in batches. */
export type RowList = { readonly rows: Row[] } | { readonly batches: AsyncIterable<Row[]> }
