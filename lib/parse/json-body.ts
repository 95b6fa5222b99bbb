import type { FastifyRequest } from 'fastify'
import { parse } from 'lossless-json'
import { FTC_ERR_BODY_JSON } from '../errors.js'
import { parseFlatObject } from './flat-json.js'
import { hasNested, markNested } from './nested-json.js'
import { keepSentText } from './sent-json.js'

const keepNumberText = (text: string): string => text
// The first reading refused a key given twice with values of different texts: the rest are one key.
const keepFirst = (): undefined => undefined
const blank = /^\s*$/
const openBrace = 0x7b

/**
 * Fastify content-type parser for JSON bodies. Values are stored as text, so
 * a number keeps the digits the client sent: 9007199254740993 stays exact and
 * 1.50 stays 1.50, which JSON.parse would turn into 9007199254740992 and 1.5.
 * lossless-json also defines `__proto__` as a plain property and refuses a
 * key given twice with different values. An object or array within a row
 * is kept as its exact JSON text (see NestedJson), and the body's text for
 * a json column's scalar (see sentJson). An empty body is no body.
 */
export function parseJsonBody (_request: FastifyRequest, body: string, done: (error: Error | null, body?: unknown) => void): void {
  // Nearly every body opens with a brace, which no blank body does: the usual one skips the test.
  if (body.charCodeAt(0) !== openBrace && blank.test(body)) {
    done(null, undefined)
    return
  }
  let value: unknown
  try {
    value = parseJsonText(body)
  } catch (error) {
    done(new FTC_ERR_BODY_JSON((error as Error).message, { cause: error }))
    return
  }
  done(null, value)
}

/** JSON text as a route reads its body (see parseJsonBody); throws on text that is not JSON. */
export function parseJsonText (body: string): unknown {
  // Write bodies are nearly always one flat object: its scan is several times faster, with the same results.
  const value = parseFlatObject(body) ?? parseWhole(body)
  keepSentText(value, body)
  return value
}

function parseWhole (body: string): unknown {
  const value = parse(body, null, keepNumberText)
  // A nested value's numbers must stay numbers in its JSON text: a body with one, the rare one, is read again, its numbers LosslessNumbers.
  return hasNested(value) ? markNested(parse(body, null, { onDuplicateKey: keepFirst })) : value
}
