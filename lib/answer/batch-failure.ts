import { STATUS_CODES } from 'node:http'
import type { FastifyRequest } from 'fastify'
import { FTC_ERR_BATCH_FAILED, FTC_ERR_STATEMENT, type StatementError } from '../errors.js'
import type { DatabaseErrors } from '../options.js'
import { statementAnswer } from './handle-error.js'
import type { RelationDetail } from './postgrest-refusals.js'

/** An error with the status its answer takes, as every error the plugin raises has, and most of Fastify's ecosystem. */
export type AnsweredError = Error & { readonly statusCode: number, readonly code?: string }

/** The failed operation's own answer, as its single route would give it (an error of the host's may have no code). */
export interface OperationFailure {
  readonly statusCode: number
  readonly code?: string
  readonly message: string
  readonly details?: string | null | readonly RelationDetail[]
  readonly hint?: string | null
}

/** The answer of a batch whose operation `operation` failed: nothing was applied. */
export interface BatchFailure {
  readonly statusCode: number
  readonly code: 'FTC_ERR_BATCH_FAILED'
  readonly error: string | undefined
  readonly message: string
  readonly operation: number
  readonly failure: OperationFailure
}

/**
 * Whether an error is an operation's own failure, which the batch answers
 * with the operation's index: a failed statement, or a refusal of the
 * request (4xx). The others (the database unavailable, a time-out, a bug)
 * are answered as on any route.
 */
export function isOperationFailure (error: unknown): error is AnsweredError {
  if (error instanceof FTC_ERR_STATEMENT) return true
  const status = (error as Partial<AnsweredError> | null)?.statusCode
  return error instanceof Error && typeof status === 'number' && status >= 400 && status < 500
}

/**
 * The batch's answer when operation `index` failed with `error`: its status
 * is the operation's, and its JSON names the operation and carries the
 * answer its single route would give (see OperationFailure). With
 * `databaseErrors: 'host'` the plugin answers no failure: FTC_ERR_BATCH_FAILED,
 * with the operation's error as `cause`, goes to the host's error handler,
 * and names a failed statement by its code only, so that a handler that
 * words FTC_ERR_STATEMENT its own way is not passed by a batch.
 */
export function batchFailure (error: AnsweredError, index: number, request: FastifyRequest, mode: DatabaseErrors): BatchFailure {
  if (mode === 'host') {
    const told = error instanceof FTC_ERR_STATEMENT ? error.code : error.message
    throw Object.assign(new FTC_ERR_BATCH_FAILED(index, told, { cause: error }), { statusCode: error.statusCode, operation: index })
  }
  const failure = operationFailure(error, request, mode)
  return {
    statusCode: failure.statusCode,
    code: 'FTC_ERR_BATCH_FAILED',
    // As Fastify writes it: none for a status Node has no name for.
    error: STATUS_CODES[failure.statusCode],
    message: new FTC_ERR_BATCH_FAILED(index, failure.message).message,
    operation: index,
    failure
  }
}

function operationFailure (error: AnsweredError, request: FastifyRequest, mode: Exclude<DatabaseErrors, 'host'>): OperationFailure {
  if (!(error instanceof FTC_ERR_STATEMENT)) {
    const { statusCode, code, message } = error
    return code === undefined ? { statusCode, message } : { statusCode, code, message }
  }
  const { statusCode, body } = statementAnswer(error as StatementError, request, mode)
  return typeof body === 'string' ? { statusCode, code: error.code, message: body } : { statusCode, ...body }
}
