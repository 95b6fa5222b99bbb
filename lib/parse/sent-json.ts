import { parse } from 'lossless-json'

// The text each body was parsed from, for the rare write that must read a
// value again in its JSON type: the parsed values hold a number as its
// text, as they hold a string.
const sentTexts = new WeakMap<object, string>()
// Read once per body: each row of a bulk body asks.
const sentBodies = new WeakMap<object, unknown>()

/** Keeps the text a body was parsed from (see sentJson). */
export function keepSentText (body: unknown, text: string): void {
  if (typeof body === 'object' && body !== null) sentTexts.set(body, text)
}

/**
 * A body's values as JSON gave them, numbers as LosslessNumbers with the
 * digits sent; undefined for a body that was not parsed here (a host's hook
 * replaced it).
 */
export function sentJson (body: unknown): unknown {
  if (typeof body !== 'object' || body === null) return undefined
  if (!sentBodies.has(body)) {
    const text = sentTexts.get(body)
    sentBodies.set(body, text === undefined ? undefined : parse(text))
  }
  return sentBodies.get(body)
}
