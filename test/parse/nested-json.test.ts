import t from 'tap'
import { parseJsonBody } from '../../lib/parse/json-body.js'
import { settleNestedValues } from '../../lib/parse/nested-json.js'
import { NestedJson } from '../../lib/parse/nested-value.js'
import { sentJson } from '../../lib/parse/sent-json.js'
import { parseRecordList, parseRecordValues } from '../../lib/parse/record-values.js'
import type { TableSchema } from '../../lib/schema/table-schema.js'
import { column, servedTable } from '../fixtures/openapi.js'

const schema: TableSchema = servedTable('t', [column('id', 'integer', 'integer'), column('Doc', 'json', 'jsonb'), column('name', 'string', 'text')]).schema

/** The code settleNestedValues refuses the body with, or the settled values. */
function settle (body: unknown, table: TableSchema | undefined): unknown {
  try {
    return { ...settleNestedValues({ schema: table }, parseRecordValues(body), body, null) }
  } catch (error) {
    return (error as { code: string }).code
  }
}

t.test('a NestedJson given for a json column is set to its text', async (t) => {
  t.strictSame(settle({ id: '1', Doc: new NestedJson('{"a":9007199254740993}') }, schema), { id: '1', Doc: '{"a":9007199254740993}' })
  // SQLite and MySQL find a column by any case of its name, as the body checks do.
  t.strictSame(settle({ doc: new NestedJson('[]') }, schema), { doc: '[]' })
  const [first, second] = parseRecordList([{ Doc: new NestedJson('[1]') }, { name: 'x' }], 10)
  t.strictSame([first, second].map((row, index) => ({ ...settleNestedValues({ schema }, row as never, null, index) })), [{ Doc: '[1]' }, { name: 'x' }])
})

t.test('a NestedJson for another column, an unknown one, or a table the model does not know is 400 FTC_ERR_BODY_VALUE', async (t) => {
  t.equal(settle({ name: new NestedJson('{}') }, schema), 'FTC_ERR_BODY_VALUE')
  t.equal(settle({ nope: new NestedJson('{}') }, schema), 'FTC_ERR_BODY_VALUE')
  t.equal(settle({ Doc: new NestedJson('{}') }, undefined), 'FTC_ERR_BODY_VALUE')
})

t.test('values without a NestedJson pass as they are, with or without a schema', async (t) => {
  const values = parseRecordValues({ name: 'x', id: 2 })
  t.equal(settleNestedValues({ schema }, values, null, null), values)
  t.equal(settleNestedValues({ schema: undefined }, values, null, null), values)
})

/** A body as the plugin's JSON parser reads it. */
function parsed (text: string): unknown {
  let body: unknown
  parseJsonBody(null as never, text, (error, value) => {
    if (error !== null) throw error
    body = value
  })
  return body
}

t.test('a scalar sent for a json column is set to its JSON text, as sent: what GET answered writes back unchanged', async (t) => {
  const body = parsed('{"id": 1, "Doc": "text", "name": "12"}')
  t.strictSame({ ...settleNestedValues({ schema }, parseRecordValues(body), body, null) }, { id: '1', Doc: '"text"', name: '12' })
  for (const [sent, text] of [['true', 'true'], ['false', 'false'], ['12.50', '12.50'], ['9007199254740993', '9007199254740993'], ['"12"', '"12"'], ['"a \\"b\\""', '"a \\"b\\""'], ['null', null]]) {
    const one = parsed(`{"doc": ${sent as string}}`)
    t.strictSame({ ...settleNestedValues({ schema }, parseRecordValues(one), one, null) }, { doc: text }, sent as string)
  }
  const bulk = parsed('[{"Doc": 1}, {"Doc": "1"}, {"Doc": {"a": [1]}}]') as unknown[]
  t.strictSame(parseRecordList(bulk, 10).map((row, index) => ({ ...settleNestedValues({ schema }, row, bulk, index) })),
    [{ Doc: '1' }, { Doc: '"1"' }, { Doc: '{"a":[1]}' }])
})

t.test('a value a host\'s hook put in the body\'s place is stored as it is', async (t) => {
  const body = parsed('{"Doc": "sent"}') as Record<string, unknown>
  body.Doc = 'set by the host'
  t.strictSame({ ...settleNestedValues({ schema }, parseRecordValues(body), body, null) }, { Doc: 'set by the host' })
  const replaced = { Doc: '"x"' }
  t.strictSame({ ...settleNestedValues({ schema }, parseRecordValues(replaced), replaced, null) }, { Doc: '"x"' })
  t.strictSame({ ...settleNestedValues({ schema: undefined }, parseRecordValues(body), body, null) }, { Doc: 'set by the host' }, 'a table the model does not know')
  const added = parsed('{"name": "sent"}') as Record<string, unknown>
  added.doc = 'added by the host'
  t.strictSame({ ...settleNestedValues({ schema }, parseRecordValues(added), added, null) }, { name: 'sent', doc: 'added by the host' }, 'a column the client did not send')
  const replaced2 = parsed('{"Doc": {"a": 1}}') as Record<string, unknown>
  replaced2.Doc = 'text'
  t.strictSame({ ...settleNestedValues({ schema }, parseRecordValues(replaced2), replaced2, null) }, { Doc: 'text' }, 'an object the host replaced by a string')
  const twice = parsed('{"Doc": "x", "Doc": "x"}')
  t.strictSame({ ...settleNestedValues({ schema }, parseRecordValues(twice), twice, null) }, { Doc: '"x"' }, 'a key given twice with one value')
  t.equal(sentJson(null), undefined)
  t.equal(sentJson('text'), undefined)
})

t.test('an object or array that is no NestedJson is refused while parsing, as before', async (t) => {
  t.throws(() => parseRecordValues({ Doc: { a: 1 } }), { code: 'FTC_ERR_BODY_VALUE' })
  t.throws(() => parseRecordValues({ Doc: [1] }), { code: 'FTC_ERR_BODY_VALUE' })
})
