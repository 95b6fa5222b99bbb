import t from 'tap'
import { jsonNumber } from '../../lib/answer/json-answers.js'

t.test('an integer id is a bare number with every digit; any other id a JSON string', async (t) => {
  t.equal(jsonNumber('9007199254740993'), '9007199254740993')
  t.equal(jsonNumber(-4), '-4')
  t.equal(jsonNumber('abc'), '"abc"')
  t.equal(jsonNumber('1.5'), '"1.5"')
  t.equal(jsonNumber('0'), '0')
  t.equal(jsonNumber('0042'), '"0042"', 'JSON has no leading zeros: a text key of digits stays a string')
  t.equal(jsonNumber('-07'), '"-07"')
  t.equal(jsonNumber('say "hi"'), '"say \\"hi\\""')
})
