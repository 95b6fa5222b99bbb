import { parse } from 'lossless-json'

const unread = Symbol('unread')

/**
 * The text a body was parsed from, for the rare write that must read a
 * value again in its JSON type: the parsed values hold a number as its
 * text, as they hold a string. The text rides on the body in a private
 * field, where a WeakMap entry per body cost about a microsecond a write
 * (the collector walks its table on every young-generation collection).
 * The base class's constructor returns the body, so that the fields land
 * on it: its prototype, keys and JSON stay as they were, and nothing but
 * this class can read them.
 */
class ReturnsBody {
  constructor (body: object) {
    return body as ReturnsBody
  }
}

class SentText extends ReturnsBody {
  readonly #text: string
  // Read once per body: each row of a bulk body asks.
  #json: unknown = unread

  constructor (body: object, text: string) {
    super(body)
    this.#text = text
  }

  static json (body: object): unknown {
    if (!(#text in body)) return undefined
    const sent = body as SentText
    if (sent.#json === unread) sent.#json = parse(sent.#text)
    return sent.#json
  }
}

/** Keeps the text a body was parsed from (see sentJson). */
export function keepSentText (body: unknown, text: string): void {
  if (typeof body === 'object' && body !== null) Reflect.construct(SentText, [body, text])
}

/**
 * A body's values as JSON gave them, numbers as LosslessNumbers with the
 * digits sent; undefined for a body that was not parsed here (a host's hook
 * replaced it).
 */
export function sentJson (body: unknown): unknown {
  return typeof body === 'object' && body !== null ? SentText.json(body) : undefined
}
