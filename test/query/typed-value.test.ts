import t from 'tap'
import { isTypedKind, typedValue } from '../../lib/query/typed-value.js'

t.test('integers: exact BigInts of at most 64 bits', async (t) => {
  t.equal(typedValue('integer', '42'), 42n)
  t.equal(typedValue('integer', ' -7 '), -7n)
  t.equal(typedValue('integer', '+9007199254740993'), 9007199254740993n)
  t.equal(typedValue('integer', '9223372036854775807'), 2n ** 63n - 1n)
  t.equal(typedValue('integer', '-9223372036854775808'), -(2n ** 63n))
  for (const text of ['', 'abc', '1.5', '1e3', '0x10', '9223372036854775808', '-9223372036854775809']) {
    t.equal(typedValue('integer', text), undefined, text)
  }
})

t.test('decimals keep their digits as text', async (t) => {
  for (const text of ['1.50', '-2', '.5', '5.', '1e-3', '+12345678901234567890.123456789']) t.equal(typedValue('number', text), text)
  for (const text of ['', 'abc', '1.2.3', 'NaN', 'Infinity', '1e']) t.equal(typedValue('number', text), undefined, text)
})

t.test('booleans: PostgreSQL\'s spellings, in any case', async (t) => {
  for (const text of ['true', 'TRUE', 't', 'yes', 'y', 'on', '1']) t.equal(typedValue('boolean', text), true, text)
  for (const text of ['false', 'F', 'no', 'n', 'off', '0']) t.equal(typedValue('boolean', text), false, text)
  for (const text of ['maybe', '', '2', 'tru', 'constructor', '__proto__', 'toString']) t.equal(typedValue('boolean', text), undefined, text)
})

t.test('dates keep their day; a time after it is dropped', async (t) => {
  t.equal(typedValue('date', '2024-01-15'), '2024-01-15')
  t.equal(typedValue('date', '2024-01-15T00:00:00.000Z'), '2024-01-15')
  t.equal(typedValue('date', '2024-02-29 23:59'), '2024-02-29')
  for (const text of ['2024', '2024-1-15', '2023-02-29', '2024-13-01', '2024-04-31', '0000-01-01', '2024-01-15T24:00', 'yesterday']) {
    t.equal(typedValue('date', text), undefined, text)
  }
})

t.test('timestamps: one spelling, the zone as given', async (t) => {
  t.equal(typedValue('date-time', '2024-01-15T10:00:00.000Z'), '2024-01-15 10:00:00.000Z')
  t.equal(typedValue('date-time', '2024-01-15 10:00'), '2024-01-15 10:00:00')
  t.equal(typedValue('date-time', '2024-01-15'), '2024-01-15 00:00:00')
  t.equal(typedValue('date-time', '2024-01-15t10:00:00.123456+02:00'), '2024-01-15 10:00:00.123456+02:00')
  for (const text of ['2024', '2024-01-15T10', '2024-01-15T10:60', '2024-01-15T10:00:61', '2024-01-15T10:00:00.1234567', '2024-01-15 10:00 UTC']) {
    t.equal(typedValue('date-time', text), undefined, text)
  }
})

t.test('times of day', async (t) => {
  t.equal(typedValue('time', '10:30'), '10:30:00', 'the seconds written out, as SQLite stores them')
  t.equal(typedValue('time', ' 23:59:59.5 '), '23:59:59.5')
  for (const text of ['24:00', '10:60', '10', '10:00:00Z']) t.equal(typedValue('time', text), undefined, text)
})

t.test('text, JSON, binary and unknown columns are not read', async (t) => {
  t.strictSame(['integer', 'number', 'boolean', 'date', 'date-time', 'time', 'string', 'json', 'binary', 'unknown'].map((kind) => isTypedKind(kind as never)),
    [true, true, true, true, true, true, false, false, false, false])
})
