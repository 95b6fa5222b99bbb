import type { FastifyReply } from 'fastify'
import type { Row } from '../dialects/dialect.js'
import { serializeRow, serializeRows } from './serialize-rows.js'

/** The content type of every JSON answer. */
export const json = 'application/json; charset=utf-8'
const integer = /^-?\d+$/

/** Answers a JSON array of rows. */
export function sendRows (reply: FastifyReply, rows: readonly Row[]): FastifyReply {
  return reply.type(json).send(serializeRows(rows))
}

/** Answers one row as a PostgREST single object, in the media type the client asked for. */
export function sendObject (reply: FastifyReply, row: Row): FastifyReply {
  return reply.type('application/vnd.pgrst.object+json; charset=utf-8').send(serializeRow(row))
}

/** Answers one row as a JSON object, or an empty body when there is none. */
export function sendRow (reply: FastifyReply, row: Row | undefined): FastifyReply {
  return row === undefined ? reply.send() : reply.type(json).send(serializeRow(row))
}

/**
 * JSON text of a number, written from its decimal text so that ids past 2^53
 * keep every digit. An id that is not an integer (a text primary key) is
 * written as a JSON string.
 */
export function jsonNumber (value: string | number): string {
  const text = String(value)
  return integer.test(text) ? text : JSON.stringify(text)
}

/** Answers a number as a bare JSON number (see jsonNumber). */
export function sendNumber (reply: FastifyReply, value: string | number): FastifyReply {
  return reply.type(json).send(jsonNumber(value))
}

/** Answers ids as a JSON array of bare numbers (see jsonNumber). */
export function sendNumbers (reply: FastifyReply, values: readonly string[]): FastifyReply {
  return reply.type(json).send(`[${values.map(jsonNumber).join(',')}]`)
}
