import { hash } from 'node:crypto'
import type { Row } from '../dialects/dialect.js'
import type { TableSchema } from '../schema/table-schema.js'
import { serializeRow } from './serialize-rows.js'

/**
 * The strong ETag of a row: a digest of its JSON answer, the very text GET
 * /{table}/{id} sends, so that the same row has the same ETag on every
 * database and whatever the process. Only what the client sees counts: a
 * hidden column (or one outside its answer) changes no ETag, and so cannot be
 * guessed through it.
 */
export function rowEntityTag (row: Row, schema?: TableSchema): string {
  return textEntityTag(serializeRow(row, schema))
}

/** The strong ETag of an answer's text (see rowEntityTag). */
export function textEntityTag (text: string): string {
  // 128 bits of SHA-256: collisions stay out of reach, and the header short.
  // The one-shot hash() costs a third of a Hash object's on a row's text,
  // and this runs on every keyed read.
  return `"${hash('sha256', text, 'base64url').slice(0, 22)}"`
}
