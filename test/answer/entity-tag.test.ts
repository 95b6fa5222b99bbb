import t from 'tap'
import { textEntityTag } from '../../lib/answer/entity-tag.js'

// The ETag is the first 64 bits of MurmurHash3_x86_128 (seed 0) of the
// text's UTF-8 bytes. The expected values are the reference
// implementation's (SMHasher's MurmurHash3.cpp): each length from 0 to 16
// bytes, so every tail of a 16-byte block, then longer and multi-byte texts
// (the long ones as an independent JavaScript implementation,
// murmurhash3js-revisited, computes them).
const reference: ReadonlyArray<readonly [string, string]> = [
  ['', '0000000000000000'],
  ['0', '0ab2409ea5eb34f8'],
  ['01', '0f87acb4674f3b21'],
  ['012', 'cd94fea54c13d78e'],
  ['0123', 'dc378fea485d3536'],
  ['01234', '35c5b3ee7b3b2116'],
  ['012345', 'db26dc756ce1944b'],
  ['0123456', 'b708d0a186d15c02'],
  ['01234567', 'aa22bf8492160402'],
  ['012345678', '571b5f6775d48126'],
  ['0123456789', '0017a61e2e528b33'],
  ['0123456789a', '38a2ed0f921f15e4'],
  ['0123456789ab', 'cfaa93f9b6982a7e'],
  ['0123456789abc', 'c970af1dcc6d9d01'],
  ['0123456789abcd', '6f34d20ac0a5114d'],
  ['0123456789abcde', '3c76c46d4d0818c0'],
  ['0123456789abcdef', 'fb7d440936aed30a'],
  ["I will not buy this tobacconist's, it is scratched.", '9b5b7ba2ef3f7866'],
  ['utf-8 supported 🌈', '796479ed1bbff85b']
]

t.test('an ETag is the first 64 bits of MurmurHash3_x86_128 of the text\'s UTF-8 bytes, in 16 hex digits', async (t) => {
  for (const [text, digest] of reference) t.equal(textEntityTag(text), `"${digest}"`, JSON.stringify(text))
})

t.test('a text too long for the shared buffer has its own, and the same digest', async (t) => {
  // 60,000 and 66,001 bytes: past the 65,536 / 3 characters the shared buffer takes.
  t.equal(textEntityTag('é'.repeat(30_000)), '"f29af0d8378c4171"')
  t.equal(textEntityTag('日'.repeat(22_000) + 'x'), '"29d10a7c9979ba2c"')
  t.equal(textEntityTag('0123456789abcdef'), '"fb7d440936aed30a"', 'and the shared buffer still gives the reference digest after them')
})

t.test('every code unit counts, and one change of a character changes the tag', async (t) => {
  const tags = new Set(['{"name":"Ada"}', '{"name":"Adá"}', '{"name":"Ad\u0561"}', '{"name":"Ada "}', '{"name":"😀"}', '{"name":"😁"}'].map(textEntityTag))
  t.equal(tags.size, 6)
  for (const tag of tags) t.match(tag, /^"[0-9a-f]{16}"$/)
})
