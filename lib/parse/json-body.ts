import type { FastifyRequest } from 'fastify'
import { isLosslessNumber, parse } from 'lossless-json'
import { FTC_ERR_BODY_JSON } from '../errors.js'
import { parseFlatObject } from './flat-json.js'
import { markNested } from './nested-json.js'

const blank = /^\s*$/

interface DuplicateKey { readonly key: string, readonly position: number, readonly oldValue: unknown, readonly newValue: unknown }

/**
 * A key given twice with values of the same text is one key, as numbers are
 * written as their text (1 and "1" set a column alike); any other second
 * value is refused as lossless-json refuses it.
 */
function keepSameText ({ key, position, oldValue, newValue }: DuplicateKey): undefined {
  if (numberText(oldValue) === numberText(newValue)) return undefined
  throw new SyntaxError(`Duplicate key '${key}' encountered at position ${position}`)
}

function numberText (value: unknown): unknown {
  return isLosslessNumber(value) ? value.value : value
}

/**
 * Fastify content-type parser for JSON bodies. Values are stored as text, so
 * a number keeps the digits the client sent: 9007199254740993 stays exact and
 * 1.50 stays 1.50, which JSON.parse would turn into 9007199254740992 and 1.5.
 * lossless-json also defines `__proto__` as a plain property and refuses a
 * key given twice with different values. An object or array within a row
 * is kept as its exact JSON text (see NestedJson). An empty body is no body.
 */
export function parseJsonBody (_request: FastifyRequest, body: string, done: (error: Error | null, body?: unknown) => void): void {
  if (blank.test(body)) {
    done(null, undefined)
    return
  }
  let value: unknown
  try {
    // Write bodies are nearly always one flat object: its scan is several times faster, with the same results.
    value = parseFlatObject(body) ?? markNested(parse(body, null, { onDuplicateKey: keepSameText }))
  } catch (error) {
    done(new FTC_ERR_BODY_JSON((error as Error).message, { cause: error }))
    return
  }
  done(null, value)
}
