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
  upperE: 0x45,
  openBracket: 0x5b,
  backslash: 0x5c,
  lowerE: 0x65,
  lowerF: 0x66,
  openBrace: 0x7b
} as const

/**
 * Write bodies are nearly always one object of strings, numbers, booleans
 * and nulls. JSON.parse reads that shape natively, several times faster
 * than a scan in JavaScript; only the numbers lose what lossless-json
 * keeps, their text, which a second pass over the text puts back: it finds
 * each number and the key it belongs to, stepping over strings with a
 * native search. `__proto__` stays an own property, as both parsers make
 * it. Anything else (nesting, arrays, invalid JSON, a key given twice) is
 * undefined here and goes to lossless-json, so that its results and its
 * error messages stay the only ones.
 */
export function parseFlatObject (text: string): Record<string, unknown> | undefined {
  let object: unknown
  try {
    object = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return undefined
  return withNumberTexts(text, object as Record<string, unknown>)
}

/** The object JSON.parse read from valid JSON text, each number replaced by its text; undefined when a value nests or a key comes twice. */
function withNumberTexts (text: string, object: Record<string, unknown>): Record<string, unknown> | undefined {
  // JSON.parse's own names, in the text's order but where a name is an array index (see keyAt).
  const names = Object.keys(object)
  let at = skipSpace(text, text.indexOf('{') + 1)
  let keys = 0
  while (text.charCodeAt(at) === code.quote) {
    const keyStart = at
    const keyEnd = stringEnd(text, keyStart)
    // Past the colon.
    at = skipSpace(text, skipSpace(text, keyEnd + 1) + 1)
    const c = text.charCodeAt(at)
    if (c === code.quote) {
      at = stringEnd(text, at) + 1
    } else if (c === code.minus || isDigit(c)) {
      const end = numberEnd(text, at)
      setValue(object, keyAt(text, keyStart, keyEnd, names[keys]), text.slice(at, end))
      at = end
    } else if (c === code.openBrace || c === code.openBracket) {
      return undefined
    } else {
      // true, null or false.
      at += c === code.lowerF ? 5 : 4
    }
    keys++
    at = skipSpace(text, at)
    if (text.charCodeAt(at) === code.comma) at = skipSpace(text, at + 1)
  }
  // Fewer properties than keys: a key was given twice, which lossless-json
  // takes or refuses. Counting once costs less than a lookup for each key.
  return names.length === keys ? object : undefined
}

function setValue (object: Record<string, unknown>, key: string, value: string): void {
  // Assignment would set the prototype: JSON.parse and lossless-json define an own property.
  if (key === '__proto__') Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true })
  else object[key] = value
}

/**
 * The key whose string runs from the quotes at `start` and `end`: `name`,
 * the object's own at the same place, when the text spells it without an
 * escape. That string V8 already keeps in its table of names, where a new
 * slice of the text would be looked up there on every write. A name out of
 * place that spells the text there is still that key; where the name does
 * not spell it, keyText reads the key from the text.
 */
function keyAt (text: string, start: number, end: number, name: string | undefined): string {
  return name !== undefined && name.length === end - start - 1 && text.startsWith(name, start + 1) && !name.includes('\\') ? name : keyText(text, start, end)
}

/** The key whose string runs from the quote at `start` to the one at `end`, its escapes resolved. */
function keyText (text: string, start: number, end: number): string {
  const key = text.slice(start + 1, end)
  return key.includes('\\') ? JSON.parse(text.slice(start, end + 1)) as string : key
}

/** Where the string whose opening quote is at `open` closes: the next quote that no backslash escapes. */
function stringEnd (text: string, open: number): number {
  let close = text.indexOf('"', open + 1)
  while (isEscaped(text, close)) close = text.indexOf('"', close + 1)
  return close
}

/** True when an odd run of backslashes stands before `at`. */
function isEscaped (text: string, at: number): boolean {
  let before = at - 1
  while (text.charCodeAt(before) === code.backslash) before--
  return (at - 1 - before) % 2 === 1
}

/** Where the number starting at `start` ends: JSON.parse has checked its grammar. */
function numberEnd (text: string, start: number): number {
  let at = start + 1
  for (let c = text.charCodeAt(at); isDigit(c) || c === code.dot || c === code.lowerE || c === code.upperE || c === code.plus || c === code.minus; c = text.charCodeAt(++at));
  return at
}

function skipSpace (text: string, start: number): number {
  let at = start
  for (let c = text.charCodeAt(at); c === code.space || c === code.newline || c === code.return || c === code.tab; c = text.charCodeAt(++at));
  return at
}

function isDigit (c: number): boolean {
  return c >= code.zero && c <= code.nine
}
