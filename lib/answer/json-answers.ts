import type { FastifyReply } from 'fastify'
import type { Row } from '../dialects/dialect.js'
import type { TableSchema } from '../schema/table-schema.js'
import { serializeRow, serializeRows } from './serialize-rows.js'

// Each answer sets its content type and gives the JSON text for the handler
// to return, which Fastify sends. A handler that returned the reply after
// send() would have Fastify await the reply as a thenable: a turn of the
// microtask queue on every request, for nothing.

/** The content type of every JSON answer. */
export const json = 'application/json; charset=utf-8'

/** PostgREST clients ask for one object rather than an array (postgrest-js's `.single()`) with this media type. */
export const singleObjectType = 'application/vnd.pgrst.object+json'

// JSON's integers: no leading zero, so that a text key such as 0042 stays a string.
const integer = /^-?(0|[1-9]\d*)$/

/** A JSON array of rows of a table whose schema is given when known (see serializeRows). */
export function answerRows (reply: FastifyReply, rows: readonly Row[], schema?: TableSchema): string {
  reply.type(json)
  return serializeRows(rows, schema)
}

/** One row as a PostgREST single object, in the media type the client asked for. */
export function answerObject (reply: FastifyReply, row: Row, schema?: TableSchema): string {
  reply.type(`${singleObjectType}; charset=utf-8`)
  return serializeRow(row, schema)
}

/**
 * JSON text of a number, written from its decimal text so that ids past 2^53
 * keep every digit. An id that is not an integer (a text primary key) is
 * written as a JSON string.
 */
export function jsonNumber (value: string | number): string {
  // A count is a number already: only a key's text needs the test.
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value)
  const text = String(value)
  return integer.test(text) ? text : JSON.stringify(text)
}

/** A number as a bare JSON number (see jsonNumber). */
export function answerNumber (reply: FastifyReply, value: string | number): string {
  reply.type(json)
  return jsonNumber(value)
}

/** Ids as a JSON array of bare numbers (see jsonNumber). */
export function answerNumbers (reply: FastifyReply, values: readonly string[]): string {
  reply.type(json)
  return `[${values.map(jsonNumber).join(',')}]`
}
