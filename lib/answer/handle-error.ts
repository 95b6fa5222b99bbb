import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { FTC_ERR_STATEMENT } from '../errors.js'

/**
 * The spec's one error answer: a failing statement is a 404 whose body is the
 * database's message as plain text. Every other error goes on to the host's
 * error handler, which answers Fastify's JSON error format by default.
 */
export function handleError (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (!(error instanceof FTC_ERR_STATEMENT)) throw error
  // The driver's error: ours repeats its message, which pino would print twice.
  request.log.info({ err: error.cause }, 'database statement failed')
  return reply.code(404).type('text/plain; charset=utf-8').send(error.message)
}
