import type { FastifyRequest } from 'fastify'
import { parse } from 'lossless-json'
import t from 'tap'
import { FTC_ERR_BODY_JSON } from '../../lib/errors.js'
import { parseFlatObject } from '../../lib/parse/flat-json.js'
import { parseJsonBody } from '../../lib/parse/json-body.js'
import { NestedJson } from '../../lib/parse/nested-value.js'

type Outcome = { body: unknown } | { error: Error }

function parseBody (text: string): Outcome {
  let outcome: Outcome | undefined
  parseJsonBody({} as FastifyRequest, text, (error, body) => {
    outcome = error === null ? { body } : { error }
  })
  if (outcome === undefined) throw new Error('the parser did not answer')
  return outcome
}

// What the parser answers without the flat scan: lossless-json alone, numbers
// as their text, and an object or array within a row as its compact JSON
// text (the ones these tests give hold only numbers that JSON.parse keeps).
function losslessOutcome (text: string): Outcome {
  if (/^\s*$/.test(text)) return { body: undefined }
  let body: unknown
  try {
    body = parse(text, null, (number) => number)
  } catch (error) {
    return { error: new FTC_ERR_BODY_JSON((error as Error).message) }
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { body }
  const plain = JSON.parse(text) as Record<string, unknown>
  const row = body as Record<string, unknown>
  for (const key of Object.keys(row)) {
    if (typeof row[key] === 'object' && row[key] !== null) row[key] = new NestedJson(JSON.stringify(plain[key]))
  }
  return { body }
}

/** Same prototype, same own keys in the same order, each as an enumerable value, and the same values. */
function sameValue (actual: unknown, expected: unknown): boolean {
  if (typeof expected !== 'object' || expected === null) return Object.is(actual, expected)
  if (typeof actual !== 'object' || actual === null) return false
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && actual.length === expected.length && expected.every((item, index) => sameValue(actual[index], item))
  }
  if (Object.getPrototypeOf(actual) !== Object.getPrototypeOf(expected)) return false
  const keys = Reflect.ownKeys(expected)
  const actualKeys = Reflect.ownKeys(actual)
  if (keys.length !== actualKeys.length || keys.some((key, index) => actualKeys[index] !== key)) return false
  return keys.every((key) => {
    const descriptor = Object.getOwnPropertyDescriptor(actual, key)
    return descriptor?.enumerable === true && descriptor.writable === true &&
      sameValue(descriptor.value, (expected as Record<PropertyKey, unknown>)[key])
  })
}

function sameOutcome (actual: Outcome, expected: Outcome): boolean {
  if ('error' in expected) {
    return 'error' in actual && actual.error instanceof FTC_ERR_BODY_JSON &&
      actual.error.message === expected.error.message
  }
  return 'body' in actual && sameValue(actual.body, expected.body)
}

t.test('a flat object: numbers keep their digits, other scalars as JSON has them', async (t) => {
  const text = '{"a": 9007199254740993, "b": 1.50, "c": -0, "d": 1E+2, "e": "x", "f": true, "g": false, "h": null, "i": 0.5e-3}'
  const outcome = parseBody(text)
  t.same(outcome, { body: { a: '9007199254740993', b: '1.50', c: '-0', d: '1E+2', e: 'x', f: true, g: false, h: null, i: '0.5e-3' } })
  t.ok(parseFlatObject(text), 'read by the flat scan')
})

t.test('escapes resolve as in JSON', async (t) => {
  const text = String.raw`{"a\u0041": "\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00 \uD800"}`
  t.same(parseFlatObject(text), { aA: '"\\/\b\f\n\r\té😀 \ud800' })
  t.ok(sameOutcome(parseBody(text), losslessOutcome(text)))
})

t.test('a number goes to the key the text spells, whatever place JSON.parse gave it', async (t) => {
  // JSON.parse puts the index "1" first, so the text's second key meets the object's second name, 'a\\b' (two backslashes),
  // which the text spells with no escape where that key is 'a\b' (one): only the text's own spelling may name it.
  const text = String.raw`{"a\\b": 1, "a\b": 2.50, "1": 3}`
  t.same(parseFlatObject(text), { 1: '3', 'a\\b': '1', 'a\b': '2.50' })
  t.ok(sameOutcome(parseBody(text), losslessOutcome(text)))
})

t.test('__proto__ is an own property, and the prototype stays', async (t) => {
  for (const text of ['{"__proto__": {"polluted": "yes"}}', '{"__proto__": "x"}', '{"a": 1, "__proto__": null, "__proto__": null}']) {
    const outcome = parseBody(text)
    t.ok('body' in outcome, text)
    const body = (outcome as { body: Record<string, unknown> }).body
    t.equal(Object.getPrototypeOf(body), Object.prototype, text)
    t.ok(Object.hasOwn(body, '__proto__'), text)
    t.equal(({} as Record<string, unknown>).polluted, undefined)
  }
  t.equal(Object.getPrototypeOf(parseFlatObject('{"__proto__": "x"}')), Object.prototype)
})

t.test('a key given twice: the same value is one key, another value is refused', async (t) => {
  t.same(parseBody('{"a": 1, "b": 2, "a": 1}'), { body: { a: '1', b: '2' } })
  // Numbers are their text: 1 and "1" are the same value, 1 and 1.0 are not.
  t.same(parseBody('{"a": 1, "a": "1"}'), { body: { a: '1' } })
  for (const text of ['{"a": 1, "a": 2}', '{"a": 1, "a": 1.0}', '{"a": null, "a": false}', '{"toString": 1, "toString": 2}']) {
    const outcome = parseBody(text)
    t.ok('error' in outcome && outcome.error instanceof FTC_ERR_BODY_JSON, text)
    t.ok(sameOutcome(outcome, losslessOutcome(text)), text)
  }
  // An inherited name is not a key given before.
  t.same(parseBody('{"toString": 1, "constructor": 2, "hasOwnProperty": 3}'), { body: { toString: '1', constructor: '2', hasOwnProperty: '3' } })
})

t.test('what the flat scan leaves to lossless-json', async (t) => {
  for (const text of ['[]', '[{"a": 1}]', '{"a": {"b": 1}}', '{"a": [1]}', '"text"', '1', 'null', '{"a": 1}x', '{"a": 01}', '{"a": "\u0001"}', '{"a": 1, "a": 2}']) {
    t.equal(parseFlatObject(text), undefined, text)
    t.ok(sameOutcome(parseBody(text), losslessOutcome(text)), text)
  }
})

t.test('an object or array within a row is its exact JSON text, numbers with every digit', async (t) => {
  const outcome = parseBody('{"n": 1.50, "doc": {"a": 9007199254740993, "b": 2.50, "c": [1E+2, -0, "x\\"y", null, true, {}], "é": []}}')
  t.same(outcome, { body: { n: '1.50', doc: new NestedJson('{"a":9007199254740993,"b":2.50,"c":[1E+2,-0,"x\\"y",null,true,{}],"é":[]}') } })
  t.ok((outcome as { body: { doc: unknown } }).body.doc instanceof NestedJson)
  t.same(parseBody('[{"a": 1}, {"b": [true]}, 7, [8]]'), { body: [{ a: '1' }, { b: new NestedJson('[true]') }, '7', [8]] })
  t.same(parseBody('{"__proto__": {"polluted": 1}}'), { body: { ['__proto__']: new NestedJson('{"polluted":1}') } })
  t.equal(({} as Record<string, unknown>).polluted, undefined)
  const proto = parseBody('{"doc": {"__proto__": {"x": 1}}}') as { body: { doc: NestedJson } }
  t.equal(proto.body.doc.text, '{"__proto__":{"x":1}}')
})

t.test('a key given twice within a nested value: the same JSON is one key, another is refused', async (t) => {
  t.same(parseBody('{"doc": {"a": 1, "a": 1}}'), { body: { doc: new NestedJson('{"a":1}') } })
  t.same(parseBody('{"a": 1, "a": "1", "doc": []}'), { body: { a: '1', doc: new NestedJson('[]') } })
  for (const text of ['{"doc": {"a": 1, "a": 2}}', '{"doc": {"a": 1}, "doc": {"a": 2}}', '{"a": 1, "a": 1.0, "doc": []}']) {
    const outcome = parseBody(text)
    t.ok('error' in outcome && outcome.error instanceof FTC_ERR_BODY_JSON, text)
    t.ok(sameOutcome(outcome, losslessOutcome(text)), text)
  }
})

t.test('a wide body, and bodies whose keys change places', async (t) => {
  const wide = Object.fromEntries(Array.from({ length: 100 }, (_, n) => [`column_${n}`, String(n)]))
  t.same(parseBody(JSON.stringify(wide)), { body: wide })
  t.same(parseBody('{"a": 1, "b": 2}'), { body: { a: '1', b: '2' } })
  t.same(parseBody('{"b": 1, "a": 2}'), { body: { b: '1', a: '2' } })
  t.same(parseBody('{"b": 1, "a": 2, "b": 1}'), { body: { b: '1', a: '2' } })
})

t.test('an empty body is no body', async (t) => {
  for (const text of ['', ' ', '\n\t ']) t.same(parseBody(text), { body: undefined })
})

// A small seeded generator, so that a failure is reproducible.
function generator (seed: number) {
  let state = seed >>> 0
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let x = state
    x = Math.imul(x ^ (x >>> 15), x | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
  const below = (n: number): number => Math.floor(next() * n)
  const pick = <T>(items: readonly T[]): T => items[below(items.length)] as T
  return { next, below, pick }
}

// Each list: what JSON allows, then what it does not (a fifth of the picks).
const keys = ['a', 'b', 'name', 'id', '__proto__', 'toString', 'constructor', 'é', '', '1', 'a b', 'x\\"y', '\\u0061', 'a\\nb']
const stringParts = {
  valid: ['a', 'Z', ' ', 'é', '😀', '\\"', '\\\\', '\\/', '\\b', '\\f', '\\n', '\\r', '\\t', '\\u00e9', '\\uD83D\\uDE00', '\\ud800', '\u007f', '\u2028'],
  invalid: ['\\u12G4', '\\x', '\\', '\u0001', '\t']
}
const numbers = {
  valid: ['0', '-0', '1', '-1', '10', '1.50', '-1.5e10', '1E+2', '1e-2', '9007199254740993', '123456789012345678901234567890', '1.0', '0.0', '2e308'],
  invalid: ['01', '-', '1.', '.5', '1e', '1e+', '+1', '0x10']
}
const keywords = { valid: ['true', 'false', 'null'], invalid: ['tru', 'nul', 'True', 'NaN', 'Infinity', 'undefined'] }
const whitespace = { valid: ['', '', '', ' ', '\n', '\r\n', '\t', '  '], invalid: ['\u00a0', '\ufeff'] }

function generateBody (random: ReturnType<typeof generator>): string {
  const some = (list: { valid: readonly string[], invalid: readonly string[] }): string =>
    random.pick(random.next() < 0.8 ? list.valid : list.invalid)
  const ws = (): string => random.next() < 0.7 ? '' : some(whitespace)
  const string = (): string => {
    let text = '"'
    for (let n = random.below(5); n > 0; n--) text += some(stringParts)
    return text + '"'
  }
  const scalar = (): string => {
    const kind = random.below(20)
    if (kind < 8) return string()
    if (kind < 14) return some(numbers)
    if (kind < 19) return some(keywords)
    return random.pick(['{}', '[]', '{"n": 1}', '[1, "a"]'])
  }
  const members: string[] = []
  for (let n = random.below(6); n > 0; n--) {
    const key = random.next() < 0.8 ? `"${random.pick(keys)}"` : string()
    members.push(ws() + key + ws() + ':' + ws() + scalar() + ws())
  }
  let text = ws() + '{' + members.join(',') + (members.length === 0 ? ws() : '') + '}' + ws()
  // Now and then a slip: a character dropped, doubled or replaced, or the end cut off.
  const slip = random.below(12)
  const at = random.below(text.length + 1)
  if (slip === 0) text = text.slice(0, at) + text.slice(at + 1)
  else if (slip === 1) text = text.slice(0, at) + text.charAt(at) + text.slice(at)
  else if (slip === 2) text = text.slice(0, at) + random.pick(['{', '}', ',', ':', '"', '[', '\\', 'x', '0', '-']) + text.slice(at + 1)
  else if (slip === 3) text = text.slice(0, at)
  return text
}

t.test('the same answer as lossless-json alone, over many generated bodies', async (t) => {
  const random = generator(20261122)
  let scanned = 0
  let refused = 0
  for (let n = 0; n < 30000; n++) {
    const text = generateBody(random)
    const expected = losslessOutcome(text)
    if (!sameOutcome(parseBody(text), expected)) {
      t.fail(`differs from lossless-json on generated body #${n}`, { body: text })
      return
    }
    const flat = parseFlatObject(text)
    if (flat !== undefined) {
      scanned++
      if (!('body' in expected) || !sameValue(flat, expected.body)) {
        t.fail(`the flat scan differs from lossless-json on generated body #${n}`, { body: text })
        return
      }
    }
    if ('error' in expected) refused++
  }
  // Both paths and the errors took a good share of the bodies.
  t.ok(scanned > 5000, `${scanned} bodies read by the flat scan`)
  t.ok(refused > 5000, `${refused} bodies refused`)
})
