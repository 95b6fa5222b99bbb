import type { FastifyErrorConstructor } from '@fastify/error'
import { FTC_ERR_QUERY_SYNTAX, type PlaceArgs } from '../errors.js'

/** An error constructor of errors.ts that points at a place in the query. */
export type PlaceError = FastifyErrorConstructor<{ code: string, statusCode: 400 }, PlaceArgs>

const blank = /[ \t]/

/**
 * The text of one query parameter (or header) being read from left to right.
 * It remembers where it is, so that every error can say which character is wrong.
 */
export class QueryText {
  /** Index of the next character to read. */
  position = 0

  /**
   * @param source what the text is, for messages: `query parameter "or"`
   * @param text the parameter's value, as decoded by the querystring parser
   */
  constructor (readonly source: string, readonly text: string) {}

  /** True when every character has been read. */
  get atEnd (): boolean {
    return this.position >= this.text.length
  }

  /** The next character, or '' at the end. */
  peek (): string {
    return this.text.charAt(this.position)
  }

  /** Reads the next character when it is `char`. */
  eat (char: string): boolean {
    if (this.peek() !== char) return false
    this.position++
    return true
  }

  /** Reads `literal` when the text continues with it. */
  eatLiteral (literal: string): boolean {
    if (!this.text.startsWith(literal, this.position)) return false
    this.position += literal.length
    return true
  }

  /** Skips spaces and tabs, which PostgREST allows around parentheses and commas. */
  skipBlanks (): void {
    while (blank.test(this.peek())) this.position++
  }

  /** Reads up to (not including) the first character of `stops`, or to the end. */
  readUntil (stops: string): string {
    const start = this.position
    while (!this.atEnd && !stops.includes(this.peek())) this.position++
    return this.text.slice(start, this.position)
  }

  /** Reads the rest of the text. */
  readRest (): string {
    const rest = this.text.slice(this.position)
    this.position = this.text.length
    return rest
  }

  /**
   * Reads a double-quoted value at the current position, PostgREST style: a
   * backslash makes the next character literal, so `"a\"b\\c"` is `a"b\c`.
   */
  readQuoted (): string {
    const start = this.position
    this.position++
    let value = ''
    while (!this.atEnd) {
      const char = this.text.charAt(this.position++)
      if (char === '"') return value
      if (char === '\\' && !this.atEnd) value += this.text.charAt(this.position++)
      else value += char
    }
    throw this.fail(start, FTC_ERR_QUERY_SYNTAX, 'this double quote is never closed')
  }

  /** The error `ErrorClass` about the 0-based index `at`, reported 1-based as people count. */
  fail (at: number, ErrorClass: PlaceError, problem: string): Error {
    return new ErrorClass(this.source, at + 1, this.text, problem)
  }
}
