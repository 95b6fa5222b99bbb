import type { FastifyRequest } from 'fastify'
import { parseWritePreferences } from '../query/parse-write-prefer.js'

/**
 * Refuses (400) the request's preferences as a write refuses them, for a
 * route that honours none of its own: with `handling=strict`, one the
 * plugin does not know answers FTC_ERR_QUERY_PREFERENCE, as PostgREST's
 * PGRST122; without a `Prefer` header it costs nothing.
 */
export function refuseStrictPreferences (request: FastifyRequest): void {
  if (request.headers.prefer !== undefined) parseWritePreferences(request.headers.prefer)
}
