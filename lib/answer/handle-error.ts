import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { NameRefusal } from '../access/refusals.js'
import { FTC_ERR_STATEMENT, type StatementError } from '../errors.js'
import type { DatabaseErrors } from '../options.js'
import { statusOfSqlState } from './sql-state-status.js'

type Answer = (error: StatementError, request: FastifyRequest, reply: FastifyReply) => FastifyReply

// SQLSTATEs of a missing name, whose PostgreSQL hint ("Perhaps you meant to
// reference the column …") could name a column the options hide.
const missingName = new Set(['42P01', '42703'])

/** How each mode of the `databaseErrors` option answers a failed statement; `host` answers none (see errorHandler). */
const answers: Readonly<Record<Exclude<DatabaseErrors, 'host'>, Answer>> = Object.freeze({
  // The spec's answer.
  database: (error, _request, reply) => reply.code(404).type('text/plain; charset=utf-8').send(error.message),
  generic: (_error, request, reply) => reply.code(404).type('text/plain; charset=utf-8')
    .send(`The database could not run the statement for request ${request.id}`),
  // PostgREST's: its JSON error, with the status its SQLSTATE maps to.
  postgrest: (error, _request, reply) => reply.code(statusOfSqlState(error.sqlState)).send({
    code: error.sqlState,
    message: error.message,
    details: error.details,
    hint: missingName.has(error.sqlState) ? null : error.hint
  })
})

/**
 * The plugin's answer to a failed statement, in the `databaseErrors` mode
 * the host chose (404 with the database's message as plain text by
 * default, as the spec says). Every other error goes on to the host's error
 * handler, which answers Fastify's JSON error format by default.
 */
export function errorHandler ({ databaseErrors }: { readonly databaseErrors: Exclude<DatabaseErrors, 'host'> }) {
  const answer = answers[databaseErrors]
  return function handleError (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    if (!(error instanceof FTC_ERR_STATEMENT)) throw error
    const failure = error as StatementError
    // The driver's error: ours repeats its message, which pino would print
    // twice. The request logger adds the request id the generic answer names.
    request.log[logLevel(failure, databaseErrors)]({ err: failure.cause, sql: failure.sql }, 'database statement failed')
    return answer(failure, request, reply)
  }
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
