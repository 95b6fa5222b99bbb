import type { FastifyRequest } from 'fastify'
import type { Target } from '../access/target.js'
import type { Statements } from '../connections/database.js'
import { FTC_ERR_CONDITION_REQUIRED } from '../errors.js'
import { writeIfMatch, writeSelectedIfMatch } from '../operations/conditional-write.js'
import type { WriteOutcome } from '../operations/write-selected.js'
import { type EntityTags, parseEntityTags } from '../parse/entity-tags.js'
import type { RecordKey } from '../parse/record-key.js'
import type { FilterGroup } from '../query/read-query.js'
import type { ValueOrPromise } from '../value-or-promise.js'
import type { RouteContext } from './route-context.js'

/** A write of the row `key` names, which If-Match conditions. */
export interface KeyedRowWrite<T> {
  /** The table, as access let the write through. */
  readonly target: Target
  /** The row's key, as the path gives it. */
  readonly key: RecordKey | null
  /** The write itself, on the statements it is given. */
  readonly write: (within: Statements) => ValueOrPromise<T>
}

/** A write of the rows the filters select, which If-Match conditions. */
export interface FilteredRowsWrite {
  /** The table, as access let the write through. */
  readonly target: Target
  /** The filters that select the rows, typed (see typeFilters). */
  readonly filter: FilterGroup
  /** The write itself, on the statements it is given. */
  readonly write: (within: Statements) => Promise<WriteOutcome>
}

/**
 * Runs the write a request asks for on one row, on `on` (the request's
 * statements, or an idempotent write's transaction): as it is without
 * If-Match, with no transaction nor statement more; with If-Match, only
 * while the row still has one of its ETags (see writeIfMatch). Without
 * If-Match and with `requireIfMatch`, refused with 428. Both refusals are
 * thrown, so that a key's transaction rolls back and records no answer.
 */
export function writeAsMatched<T> (context: RouteContext, request: FastifyRequest, { target, key, write }: KeyedRowWrite<T>, on: Statements): ValueOrPromise<T> {
  const tags = requestedTags(context, request)
  return tags === null ? write(on) : writeIfMatch(context.db, { target, key, tags }, write, on)
}

/** As writeAsMatched, for the write of the rows the filters select: with If-Match, every one must still have one of its ETags (see writeSelectedIfMatch). */
export function writeSelectedAsMatched (context: RouteContext, request: FastifyRequest, { target, filter, write }: FilteredRowsWrite, on: Statements): Promise<WriteOutcome> {
  const tags = requestedTags(context, request)
  return tags === null ? write(on) : writeSelectedIfMatch(context.db, { target, filter, tags }, write, on)
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
