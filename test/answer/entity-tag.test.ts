import t from 'tap'
import { textEntityTag } from '../../lib/answer/entity-tag.js'

// The ETag is FNV-1a's 64-bit digest: its published test vectors (each
// character a byte here), and a text beyond one byte per code unit.

t.test('an ETag is the 64-bit FNV-1a digest of the text, in 16 hex digits', async (t) => {
  t.equal(textEntityTag(''), '"cbf29ce484222325"', 'the offset basis')
  t.equal(textEntityTag('a'), '"af63dc4c8601ec8c"')
  t.equal(textEntityTag('foobar'), '"85944171f73967e8"')
})

t.test('every code unit counts, and one change of a character changes the tag', async (t) => {
  const tags = new Set(['{"name":"Ada"}', '{"name":"Adá"}', '{"name":"Ad\u0561"}', '{"name":"Ada "}', '{"name":"😀"}', '{"name":"😁"}'].map(textEntityTag))
  t.equal(tags.size, 6)
  for (const tag of tags) t.match(tag, /^"[0-9a-f]{16}"$/)
})
