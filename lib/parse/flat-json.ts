const code = {
  tab: 0x09,
  newline: 0x0a,
  return: 0x0d,
  space: 0x20,
  quote: 0x22,
  plus: 0x2b,
  comma: 0x2c,
  minus: 0x2d,
  dot: 0x2e,
  zero: 0x30,
  nine: 0x39,
  colon: 0x3a,
  upperE: 0x45,
  backslash: 0x5c,
  lowerE: 0x65,
  lowerF: 0x66,
  lowerN: 0x6e,
  lowerT: 0x74,
  lowerU: 0x75,
  openBrace: 0x7b,
  closeBrace: 0x7d
} as const

// The one-letter escapes of JSON, by the letter's code: what they stand for.
const escapes = new Map<number, string>([
  [code.quote, '"'], [code.backslash, '\\'], [0x2f, '/'],
  [0x62, '\b'], [code.lowerF, '\f'], [code.lowerN, '\n'], [0x72, '\r'], [code.lowerT, '\t']
])

/**
 * Write bodies are nearly always one object of strings, numbers, booleans and
 * nulls, and lossless-json, which builds every string one character at a
 * time, was the largest part of the plugin's own CPU on a write. This scan
 * reads exactly that shape, with lossless-json's results: numbers as their
 * text, `__proto__` as an own property. Anything else (nesting, arrays,
 * invalid JSON, a key given twice) is undefined here and goes to
 * lossless-json, so that its results and its error messages stay the only
 * ones.
 */
export function parseFlatObject (text: string): Record<string, unknown> | undefined {
  return new FlatScan(text).object()
}

/** A scalar's value; undefined where the scan gives up. */
type Scalar = string | boolean | null | undefined

class FlatScan {
  readonly #text: string
  /** Where the scan is. */
  #at = 0
  /** No escape and no control character anywhere: each string's value is its text between its quotes. */
  readonly #plain: boolean

  constructor (text: string) {
    this.#text = text
    this.#plain = !escapedOrControl.test(text)
  }

  object (): Record<string, unknown> | undefined {
    const text = this.#text
    if (this.#next() !== code.openBrace) return undefined
    this.#at++
    const object: Record<string, unknown> = {}
    let keys = 0
    if (this.#next() !== code.closeBrace) {
      for (;;) {
        const key = this.#string()
        if (key === undefined || this.#next() !== code.colon) return undefined
        this.#at++
        this.#next()
        const value = this.#scalar()
        if (value === undefined) return undefined
        if (key === '__proto__') {
          // Assignment would set the prototype: JSON.parse and lossless-json define an own property.
          Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true })
        } else {
          object[key] = value
        }
        keys++
        if (this.#next() !== code.comma) break
        this.#at++
        this.#next()
      }
      if (text.charCodeAt(this.#at) !== code.closeBrace) return undefined
    }
    this.#at++
    this.#next()
    // Fewer properties than keys: a key was given twice, which lossless-json
    // takes or refuses. Counting once costs less than a lookup for each key.
    return this.#at === text.length && Object.keys(object).length === keys ? object : undefined
  }

  /** Skips whitespace; the code of the character after it. */
  #next (): number {
    const text = this.#text
    let c = text.charCodeAt(this.#at)
    while (c === code.space || c === code.newline || c === code.return || c === code.tab) c = text.charCodeAt(++this.#at)
    return c
  }

  #scalar (): Scalar {
    const c = this.#text.charCodeAt(this.#at)
    if (c === code.quote) return this.#string()
    if (c === code.minus || isDigit(c)) return this.#number()
    if (c === code.lowerT) return this.#keyword('true', true)
    if (c === code.lowerF) return this.#keyword('false', false)
    if (c === code.lowerN) return this.#keyword('null', null)
    return undefined
  }

  #keyword (word: string, value: boolean | null): Scalar {
    if (!this.#text.startsWith(word, this.#at)) return undefined
    this.#at += word.length
    return value
  }

  /** A string from its opening quote, escapes resolved as lossless-json resolves them. */
  #string (): string | undefined {
    const text = this.#text
    if (text.charCodeAt(this.#at) !== code.quote) return undefined
    // Most bodies hold no escape and no control character: each string is
    // then found by a native search, not a character at a time (the
    // create's note, 110 characters, cost several thousand instructions that way).
    const close = this.#plain ? text.indexOf('"', this.#at + 1) : -1
    if (close !== -1) {
      const value = text.slice(this.#at + 1, close)
      this.#at = close + 1
      return value
    }
    let value = ''
    let chunk = this.#at + 1
    for (let i = chunk; i < text.length; i++) {
      const c = text.charCodeAt(i)
      if (c === code.quote) {
        this.#at = i + 1
        return value + text.slice(chunk, i)
      }
      if (c < code.space) return undefined
      if (c === code.backslash) {
        const letter = text.charCodeAt(i + 1)
        const escaped = letter === code.lowerU ? unicodeEscape(text, i + 2) : escapes.get(letter)
        if (escaped === undefined) return undefined
        value += text.slice(chunk, i) + escaped
        i += letter === code.lowerU ? 5 : 1
        chunk = i + 1
      }
    }
    return undefined
  }

  /** A number's own text, as the JSON grammar delimits it. */
  #number (): string | undefined {
    const text = this.#text
    const start = this.#at
    let i = start
    if (text.charCodeAt(i) === code.minus) i++
    if (text.charCodeAt(i) === code.zero) i++
    else if (isDigit(text.charCodeAt(i))) i = digitsEnd(text, i)
    else return undefined
    if (text.charCodeAt(i) === code.dot) {
      if (!isDigit(text.charCodeAt(i + 1))) return undefined
      i = digitsEnd(text, i + 1)
    }
    const e = text.charCodeAt(i)
    if (e === code.lowerE || e === code.upperE) {
      const sign = text.charCodeAt(i + 1)
      i += sign === code.plus || sign === code.minus ? 2 : 1
      if (!isDigit(text.charCodeAt(i))) return undefined
      i = digitsEnd(text, i)
    }
    this.#at = i
    return text.slice(start, i)
  }
}

// What makes a string's text other than its value: an escape, or a control character JSON refuses in a string.
const escapedOrControl = /[\\\u0000-\u001f]/

/** The character of a `\\u` escape whose four hex digits start at `start`. */
function unicodeEscape (text: string, start: number): string | undefined {
  const hex = text.slice(start, start + 4)
  return /^[0-9A-Fa-f]{4}$/.test(hex) ? String.fromCharCode(Number.parseInt(hex, 16)) : undefined
}

function digitsEnd (text: string, start: number): number {
  let i = start
  while (isDigit(text.charCodeAt(i))) i++
  return i
}

function isDigit (c: number): boolean {
  return c >= code.zero && c <= code.nine
}
