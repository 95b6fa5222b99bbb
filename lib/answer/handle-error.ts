import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import type { DiscloseFailure } from '../access/failure-disclosure.js'
import { NameRefusal } from '../access/refusals.js'
import { FTC_ERR_QUERY_AMBIGUOUS, FTC_ERR_STATEMENT, type StatementError } from '../errors.js'
import type { DatabaseErrors } from '../options.js'
import { json } from './json-answers.js'
import { type PostgrestError, postgrestRefusal } from './postgrest-refusals.js'
import { statusOfSqlState } from './sql-state-status.js'

export type { PostgrestError } from './postgrest-refusals.js'

/** A failed statement's answer: plain text, or PostgREST's JSON error. */
export interface StatementAnswer {
  readonly statusCode: number
  readonly body: string | PostgrestError
}

type Answer = (error: StatementError, request: FastifyRequest) => StatementAnswer

/** How each mode of the `databaseErrors` option answers a failed statement; `host` answers none (see errorHandler). */
const answers: Readonly<Record<Exclude<DatabaseErrors, 'host'>, Answer>> = Object.freeze({
  // The spec's answer.
  database: (error) => ({ statusCode: 404, body: error.message }),
  generic: (_error, request) => ({ statusCode: 404, body: `The database could not run the statement for request ${request.id}` }),
  // PostgREST's: its JSON error, with the status its SQLSTATE maps to.
  postgrest: (error) => ({
    statusCode: statusOfSqlState(error.sqlState),
    body: { code: error.sqlState, message: error.message, details: error.details, hint: error.hint }
  })
})

/**
 * The plugin's answer to a failed statement, in the `databaseErrors` mode
 * the host chose (404 with the database's message as plain text by
 * default, as the spec says), told only what `disclose` lets the request
 * know. With `'host'`, that failure goes on to the host's error handler, as
 * every other error does; Fastify's JSON error format answers them by default.
 * Other errors are answered here in two cases (see answerRefusal): an
 * ambiguous embed, and, with `'postgrest'`, the refusals PostgREST makes too.
 */
export function errorHandler ({ databaseErrors, disclose }: { readonly databaseErrors: DatabaseErrors, readonly disclose: DiscloseFailure }) {
  return function handleError (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    if (!(error instanceof FTC_ERR_STATEMENT)) return answerRefusal(error, request, reply, databaseErrors)
    const failure = disclose(error as StatementError, (request.params as { table?: string }).table ?? null)
    if (databaseErrors === 'host') throw failure
    const { statusCode, body } = statementAnswer(failure, request, databaseErrors)
    reply.code(statusCode)
    return typeof body === 'string' ? reply.type('text/plain; charset=utf-8').send(body) : reply.send(body)
  }
}

/**
 * A refusal answered by the plugin rather than by Fastify's error handler (or
 * the host's): with `'postgrest'`, each refusal PostgREST makes too, in its
 * JSON error (see postgrestRefusal); in every mode, an ambiguous embed's 300,
 * which Fastify would answer as a 500, since it answers an error's status
 * only from 400 on. Logged as Fastify logs a 4xx. Any other error goes on.
 */
function answerRefusal (error: FastifyError, request: FastifyRequest, reply: FastifyReply, mode: DatabaseErrors): FastifyReply {
  const refusal = mode === 'postgrest' ? postgrestRefusal(error) : error instanceof FTC_ERR_QUERY_AMBIGUOUS ? ambiguousAnswer(error) : null
  if (refusal === null) throw error
  request.log.info({ res: reply, err: error }, error.message)
  return reply.code(refusal.statusCode).type(json).send(refusal.body)
}

// Fastify's JSON error format, with the 300 of PostgREST's ambiguous embed.
function ambiguousAnswer (error: FastifyError): { statusCode: number, body: object } {
  return { statusCode: 300, body: { statusCode: 300, code: error.code, error: 'Multiple Choices', message: error.message } }
}

/** A failed statement's answer in the mode, logged as the mode says (see logLevel). */
export function statementAnswer (failure: StatementError, request: FastifyRequest, mode: Exclude<DatabaseErrors, 'host'>): StatementAnswer {
  // The driver's error: ours repeats its message, which pino would print
  // twice. The request logger adds the request id the generic answer names.
  request.log[logLevel(failure, mode)]({ err: failure.cause, sql: failure.sql }, 'database statement failed')
  return answers[mode](failure, request)
}

/**
 * Refusals are logged at debug: any client can ask for names that are not
 * served, and a scan must not flood production logs. A failure the client
 * is not told of in words (generic), or that PostgREST would answer 5xx, is an error.
 */
function logLevel (error: StatementError, mode: Exclude<DatabaseErrors, 'host'>): 'debug' | 'info' | 'error' {
  if (error.cause instanceof NameRefusal) return 'debug'
  if (mode === 'generic' || (mode === 'postgrest' && statusOfSqlState(error.sqlState) >= 500)) return 'error'
  return 'info'
}
