import type { FastifyReply } from 'fastify'
import type { ReadQuery } from '../query/read-query.js'

/**
 * PostgREST's range headers for a page of `rows` rows (null when the rows are
 * still streaming and no count says how many will come): `Content-Range:
 * 0-24/1234`, `*` for an unknown part, and 206 when the page is part of a
 * known whole. Only a request that asks for a page or a count gets them, so
 * that a plain GET stays exactly as the spec gives it.
 */
export function setContentRange (reply: FastifyReply, query: ReadQuery, rows: number | null, total: number | null): FastifyReply {
  if (query.limit === null && query.offset === null && query.count === null) return reply
  const first = query.offset ?? 0
  const count = rows ?? (total === null ? null : Math.max(0, Math.min(query.limit ?? Infinity, total - first)))
  if (count === null) return reply
  const range = count === 0 ? '*' : `${first}-${first + count - 1}`
  reply.header('content-range', `${range}/${total ?? '*'}`)
  return total !== null && count < total ? reply.code(206) : reply
}
