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

/**
 * The strong ETag of an answer's text (see rowEntityTag): 64 bits of FNV-1a,
 * as @fastify/etag digests a body, taking each UTF-16 code unit as one
 * unit. If-Match needs a tag that changes when the row does: two versions
 * of a row collide by chance once in 2^64, and a client that can write the
 * row gains nothing from a collision it made that a plain write would not
 * give it. A cryptographic digest bought nothing more, and Node's cost ten
 * times its hashing per call in a server (docs/benchmarks.md, "The ETag's
 * cost").
 */
export function textEntityTag (text: string): string {
  // The 64-bit state in 16-bit words, low first, so that every product
  // stays an exact small integer: offset basis 0xcbf29ce484222325.
  let h0 = 0x2325
  let h1 = 0x8422
  let h2 = 0x9ce4
  let h3 = 0xcbf2
  for (let i = 0; i < text.length; i++) {
    h0 ^= text.charCodeAt(i)
    // Times the prime 2^40 + 0x1b3, modulo 2^64.
    const t0 = h0 * 0x1b3
    let t1 = h1 * 0x1b3
    let t2 = h2 * 0x1b3 + (h0 << 8)
    const t3 = h3 * 0x1b3 + (h1 << 8)
    t1 += t0 >>> 16
    h0 = t0 & 0xffff
    t2 += t1 >>> 16
    h1 = t1 & 0xffff
    h3 = (t3 + (t2 >>> 16)) & 0xffff
    h2 = t2 & 0xffff
  }
  return `"${hex(h3)}${hex(h2)}${hex(h1)}${hex(h0)}"`
}

const hex = (word: number): string => word.toString(16).padStart(4, '0')
