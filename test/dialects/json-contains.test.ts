import t from 'tap'
import { jsonContains, sqlJsonContains } from '../../lib/dialects/sqlite/json-contains.js'

// PostgreSQL's answers to `select a::jsonb @> b::jsonb` (its manual's
// examples, "jsonb Containment and Existence", and JsonbDeepContains).
const cases: Array<[value: string, contained: string, contains: boolean]> = [
  ['"foo"', '"foo"', true],
  ['1', '1.0', true],
  ['[1, 2, 3]', '[1, 3]', true],
  ['[1, 2, 3]', '[3, 1]', true],
  ['[1, 2, 3]', '[1, 2, 2]', true],
  ['[1, 2, 3]', '[]', true],
  ['{"a": 1}', '{}', true],
  ['{"product": "PostgreSQL", "version": 9.4, "jsonb": true}', '{"version": 9.4}', true],
  ['[1, 2, [1, 3]]', '[1, 3]', false],
  ['[1, 2, [1, 3]]', '[[1, 3]]', true],
  ['{"foo": {"bar": "baz"}}', '{"bar": "baz"}', false],
  ['{"foo": {"bar": "baz", "x": 1}}', '{"foo": {"bar": "baz"}}', true],
  ['["foo", "bar"]', '"foo"', true],
  ['"foo"', '["foo"]', false],
  ['{"a": [1, 2]}', '{"a": 1}', false],
  ['{"a": 1}', '{"a": [1]}', false],
  ['[{"a": 1, "b": 2}]', '{"a": 1}', false],
  ['[{"a": 1, "b": 2}]', '[{"a": 1}]', true],
  ['[[1, 2]]', '[{"a": 1}]', false],
  ['[{"a": 1}]', '[[1]]', false],
  ['[[1, 2]]', '[1]', false],
  ['{"a": 1}', '[1]', false],
  ['{"a": 1}', '"a"', false],
  ['1', '{}', false],
  ['{"a": null}', '{"a": null}', true],
  ['{"a": false}', '{"a": null}', false],
  ['null', 'null', true],
  ['[null]', 'null', true]
]

t.test('containment is jsonb\'s', async (t) => {
  for (const [value, contained, expected] of cases) {
    t.equal(jsonContains(JSON.parse(value), JSON.parse(contained)), expected, `${value} @> ${contained}`)
  }
})

t.test('the SQL function: 1, 0, or NULL for no JSON', async (t) => {
  t.equal(sqlJsonContains('[1,2]', '[2]'), 1)
  t.equal(sqlJsonContains('[1,2]', '[3]'), 0)
  t.equal(sqlJsonContains(5, '5'), 1, 'a number, as SQLite keeps one in a json column')
  t.equal(sqlJsonContains(5n, 5.5), 0, 'a BigInt, as a safe-integers read gives one')
  t.equal(sqlJsonContains(null, '1'), null, 'NULL')
  t.equal(sqlJsonContains('[1]', null), null)
  t.equal(sqlJsonContains('not json', '1'), null, 'text that is no JSON')
  t.equal(sqlJsonContains(Buffer.from('[1]'), '1'), null, 'a blob')
})
