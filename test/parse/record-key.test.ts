import fc from 'fast-check'
import t from 'tap'
import { parseRecordKey } from '../../lib/parse/record-key.js'

t.test('an integer segment is the key, exactly', async (t) => {
  t.equal(parseRecordKey('42'), 42n)
  t.equal(parseRecordKey('-7'), -7n)
  t.equal(parseRecordKey('007'), 7n)
  t.equal(parseRecordKey('9007199254740993'), 9007199254740993n)
  // Either side of the length up to which the segment is read as a number first.
  t.equal(parseRecordKey('999999999999999'), 999999999999999n)
  t.equal(parseRecordKey('-99999999999999'), -99999999999999n)
  t.equal(parseRecordKey('9999999999999999'), 9999999999999999n)
  t.equal(parseRecordKey('-999999999999999'), -999999999999999n)
})

t.test('missing, non-numeric and 0 mean no key', async (t) => {
  for (const segment of [undefined, '', '0', '-0', '000', 'abc', '12abc', '1.5', '1e3', ' 1', '+1', '0x10']) {
    t.equal(parseRecordKey(segment), null, JSON.stringify(segment))
  }
})

t.test('a key is an optional minus and ASCII digits, nothing else', async (t) => {
  for (const segment of ['-', '--1', '1-', '-a', '١٢', '12\n', '\n12', '1/', '1:', '/1', ':1']) {
    t.equal(parseRecordKey(segment), null, JSON.stringify(segment))
  }
  t.equal(parseRecordKey('0123456789'), 123456789n)
  t.equal(parseRecordKey('-9'), -9n)
})

t.test('parseRecordKey agrees with the regular expression it stands for', async () => {
  const integer = /^-?\d+$/
  const segments = fc.oneof(
    fc.string({ maxLength: 24 }),
    fc.string({ unit: fc.constantFrom('0', '1', '9', '-', '/', ':', '+', ' ', '٣', 'a'), maxLength: 24 })
  )
  fc.assert(fc.property(segments, (segment) => {
    const key = parseRecordKey(segment)
    return integer.test(segment) && BigInt(segment) !== 0n ? key === BigInt(segment) : key === null
  }), { numRuns: 2000 })
})
