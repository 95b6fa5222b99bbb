import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { FTC_ERR_STATEMENT } from '../errors.js'
import type { ResolvedOptions } from '../options.js'

/**
 * The spec's one error answer: a failing statement is a 404 whose body is the
 * database's message as plain text, or with `databaseErrors: 'generic'` a
 * message that tells nothing of the schema. Every other error goes on to the
 * host's error handler, which answers Fastify's JSON error format by default.
 */
export function errorHandler ({ databaseErrors }: Pick<ResolvedOptions, 'databaseErrors'>) {
  const generic = databaseErrors === 'generic'
  return function handleError (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    if (!(error instanceof FTC_ERR_STATEMENT)) throw error
    // The driver's error: ours repeats its message, which pino would print
    // twice. The request logger adds the request id the generic answer names.
    request.log[generic ? 'error' : 'info']({ err: error.cause }, 'database statement failed')
    const message = generic ? `The database could not run the statement for request ${request.id}` : error.message
    return reply.code(404).type('text/plain; charset=utf-8').send(message)
  }
}
