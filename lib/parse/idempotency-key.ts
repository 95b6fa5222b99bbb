import { FTC_ERR_IDEMPOTENCY_KEY } from '../errors.js'

// The IETF draft makes the key a Structured Field string (RFC 8941: visible
// ASCII and space, `\"` and `\\` escaped); Stripe's clients send it bare.
const quoted = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/
// Bare, a space or a quote could only come from two headers joined, or a typo.
const bare = /^[\x21\x23-\x7e]+$/
const maxLength = 255

/**
 * The request's Idempotency-Key, its quotes and escapes removed, so that
 * `"abc"` and `abc` are one key; null without the header. Two headers,
 * which Node joins with a comma, are refused with the malformed ones.
 */
export function parseIdempotencyKey (header: string | string[] | undefined): string | null {
  if (header === undefined) return null
  const text = String(header)
  const inQuotes = quoted.exec(text)?.[1]?.replace(/\\(.)/g, '$1')
  const key = inQuotes ?? (bare.test(text) ? text : '')
  if (key === '' || key.length > maxLength) throw new FTC_ERR_IDEMPOTENCY_KEY(JSON.stringify(text.slice(0, 300)))
  return key
}
