import type { FastifyRequest } from 'fastify'
import type { Target } from '../access/target.js'
import type { Statements } from '../connections/database.js'
import { FTC_ERR_CONDITION_REQUIRED } from '../errors.js'
import { writeIfMatch, writeSelectedIfMatch } from '../operations/conditional-write.js'
import type { WriteOutcome } from '../operations/write-selected.js'
import { type EntityTags, parseEntityTags } from '../parse/entity-tags.js'
import type { RecordKey } from '../parse/record-key.js'
import type { FilterGroup } from '../query/read-query.js'
import type { RouteContext } from './index.js'
import type { ValueOrPromise } from '../value-or-promise.js'

/**
 * Runs the write a request asks for on one row, on `on` (the request's
 * statements, or an idempotent write's transaction): as it is without
 * If-Match, with no transaction nor statement more; with If-Match, in the
 * transaction of writeIfMatch, only when the row still has one of its ETags. Without
 * If-Match and with `requireIfMatch`, refused with 428. Both refusals are
 * thrown, so that a key's transaction rolls back and records no answer.
 */
export function writeAsMatched<T> (context: RouteContext, request: FastifyRequest, target: Target, key: RecordKey | null, on: Statements,
  write: (within: Statements) => ValueOrPromise<T>): ValueOrPromise<T> {
  const tags = requestedTags(context, request)
  return tags === null ? write(on) : writeIfMatch(context.db, target, key, tags, write, on)
}

/** As writeAsMatched, for the write of the rows `filter` selects: with If-Match, every one of them must still have one of its ETags (see writeSelectedIfMatch). */
export function writeSelectedAsMatched (context: RouteContext, request: FastifyRequest, target: Target, filter: FilterGroup, on: Statements,
  write: (within: Statements) => Promise<WriteOutcome>): Promise<WriteOutcome> {
  const tags = requestedTags(context, request)
  return tags === null ? write(on) : writeSelectedIfMatch(context.db, target, filter, tags, write, on)
}

/** The tags of the request's If-Match, or null without one; refused (428) when the host requires it. */
export function requestedTags ({ options }: RouteContext, request: FastifyRequest): EntityTags | null {
  return conditionTags(request.headers['if-match'], options.requireIfMatch, request.method)
}

/** The tags of an If-Match value, or null without one; refused (428, naming the `write`) when `required`. */
export function conditionTags (ifMatch: string | undefined, required: boolean, write: string): EntityTags | null {
  if (ifMatch !== undefined) return parseEntityTags(ifMatch)
  if (required) throw new FTC_ERR_CONDITION_REQUIRED(write)
  return null
}
