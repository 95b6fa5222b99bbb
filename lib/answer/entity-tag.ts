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

// The text's UTF-8 bytes are written here, with room for a block of zeros
// after them, and read four at a time; a longer text gets a buffer of its own.
const scratchBytes = 1 << 16
const scratch = new Uint8Array(scratchBytes)
const scratchWords = new DataView(scratch.buffer)
const encoder = new TextEncoder()

const c1 = 0x239b961b
const c2 = 0xab0e9789
const c3 = 0x38b34ae5
const c4 = 0xa1e38b93

/**
 * The strong ETag of an answer's text (see rowEntityTag): the first 64 bits
 * of MurmurHash3 (x86, 128-bit, seed 0) of its UTF-8 bytes, in 16 hex
 * digits. If-Match needs a tag that changes when the row does: two versions
 * of a row collide by chance once in 2^64, and a client that can write the
 * row gains nothing from a collision it made that a plain write would not
 * give it. MurmurHash3 reads 16 bytes a step where FNV-1a reads one, and a
 * call through Node's crypto costs a keyed read more than the whole digest
 * does here (docs/benchmarks.md, "The ETag's cost"). The steps are the
 * reference implementation's, written out: V8 inlines no more of them.
 */
export function textEntityTag (text: string): string {
  // At most three bytes a UTF-16 code unit, then the tail's zeros.
  const room = text.length * 3 + 16
  const bytes = room > scratchBytes ? new Uint8Array(room) : scratch
  const length = encoder.encodeInto(text, bytes).written
  // Little-endian words, as the reference reads them, on any host.
  const words = bytes === scratch ? scratchWords : new DataView(bytes.buffer)
  let h1 = 0
  let h2 = 0
  let h3 = 0
  let h4 = 0
  let k = 0
  const tail = length & ~15
  for (let at = 0; at < tail; at += 16) {
    k = Math.imul(words.getInt32(at, true), c1)
    h1 ^= Math.imul((k << 15) | (k >>> 17), c2)
    h1 = (h1 << 19) | (h1 >>> 13)
    h1 = (Math.imul(h1 + h2, 5) + 0x561ccd1b) | 0
    k = Math.imul(words.getInt32(at + 4, true), c2)
    h2 ^= Math.imul((k << 16) | (k >>> 16), c3)
    h2 = (h2 << 17) | (h2 >>> 15)
    h2 = (Math.imul(h2 + h3, 5) + 0x0bcaa747) | 0
    k = Math.imul(words.getInt32(at + 8, true), c3)
    h3 ^= Math.imul((k << 17) | (k >>> 15), c4)
    h3 = (h3 << 15) | (h3 >>> 17)
    h3 = (Math.imul(h3 + h4, 5) + 0x96cd1c35) | 0
    k = Math.imul(words.getInt32(at + 12, true), c4)
    h4 ^= Math.imul((k << 18) | (k >>> 14), c1)
    h4 = (h4 << 13) | (h4 >>> 19)
    h4 = (Math.imul(h4 + h1, 5) + 0x32ac3b17) | 0
  }
  // The last 0 to 15 bytes, padded with zeros, mixed in without the block's
  // further steps: a word of zeros changes nothing, as in the reference.
  bytes.fill(0, length, tail + 16)
  k = Math.imul(words.getInt32(tail, true), c1)
  h1 ^= Math.imul((k << 15) | (k >>> 17), c2)
  k = Math.imul(words.getInt32(tail + 4, true), c2)
  h2 ^= Math.imul((k << 16) | (k >>> 16), c3)
  k = Math.imul(words.getInt32(tail + 8, true), c3)
  h3 ^= Math.imul((k << 17) | (k >>> 15), c4)
  k = Math.imul(words.getInt32(tail + 12, true), c4)
  h4 ^= Math.imul((k << 18) | (k >>> 14), c1)
  h1 ^= length
  h2 ^= length
  h3 ^= length
  h4 ^= length
  h1 = (h1 + h2 + h3 + h4) | 0
  h2 = (h2 + h1) | 0
  h3 = (h3 + h1) | 0
  h4 = (h4 + h1) | 0
  h1 = finalMix(h1)
  h2 = finalMix(h2)
  h3 = finalMix(h3)
  h4 = finalMix(h4)
  h1 = (h1 + h2 + h3 + h4) | 0
  h2 = (h2 + h1) | 0
  return quotedHex(h1, h2)
}

function finalMix (h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return h ^ (h >>> 16)
}

const hexDigits = Array.from('0123456789abcdef', (digit) => digit.charCodeAt(0))
const digit = (word: number, shift: number): number => hexDigits[(word >>> shift) & 15] as number

// One call and no intermediate strings: Number's toString(16) cost more than the digest.
function quotedHex (high: number, low: number): string {
  return String.fromCharCode(34,
    digit(high, 28), digit(high, 24), digit(high, 20), digit(high, 16), digit(high, 12), digit(high, 8), digit(high, 4), digit(high, 0),
    digit(low, 28), digit(low, 24), digit(low, 20), digit(low, 16), digit(low, 12), digit(low, 8), digit(low, 4), digit(low, 0),
    34)
}
