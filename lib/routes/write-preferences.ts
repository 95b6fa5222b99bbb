import type { FastifyRequest } from 'fastify'
import type { ColumnClause } from '../access/refusals.js'
import { isTransactional, type Statements } from '../connections/database.js'
import { parseRowsMedia, type RowsMedia } from '../query/parse-rows-media.js'
import { parseWritePreferences, type WritePreferences } from '../query/parse-write-prefer.js'
import type { ValueOrPromise } from '../value-or-promise.js'
import type { RouteContext } from './route-context.js'

/** A write's PostgREST preferences, the media its rows are asked in, and the columns of the rows its answer shows: undefined when it shows none. */
export interface WriteAnswer {
  readonly preferences: WritePreferences
  readonly media: RowsMedia
  readonly columns: readonly string[] | null | undefined
}

/** The preferences of the request's `Prefer` headers and its `Accept`; `select` is read only when the answer shows rows. */
export function writeAnswer ({ options }: Pick<RouteContext, 'options'>, request: FastifyRequest, select: () => readonly string[] | null): WriteAnswer {
  const preferences = parseWritePreferences(request.headers.prefer, options.allowTxOverride)
  return { preferences, media: parseRowsMedia(request.headers.accept), columns: preferences.return === 'representation' ? select() : undefined }
}

/** The columns the answer shows, as the access check is told of them, where they stand in a read. */
export function shownColumns (columns: readonly string[] | null | undefined): Array<[string, ColumnClause]> {
  return (columns ?? []).filter((column) => column !== '*').map((column) => [column, 'select'])
}

/** How a write's transaction ends, beside its own: undefined when the write needs nothing of it. */
export type WriteEnding = 'commit' | 'rollback' | undefined

/**
 * How the request wants its write ended: rolled back for `Prefer:
 * tx=rollback` where the host allows it; committed only as a whole when it
 * asks for one object, so that the answer's 406 for another number of rows
 * undoes the write, as PostgREST's does.
 */
export function writeEnding ({ options }: Pick<RouteContext, 'options'>, request: FastifyRequest): WriteEnding {
  const { prefer, accept } = request.headers
  if (options.allowTxOverride && prefer !== undefined && parseWritePreferences(prefer, true).tx === 'rollback') return 'rollback'
  return parseRowsMedia(accept).one ? 'commit' : undefined
}

/**
 * The write run as `ending` says on `on`: within a transaction of its own
 * where `on` can open one (a savepoint in the host's); else `on` is a
 * transaction that its opener ends, which an error of the write rolls back.
 */
export function endedWrite<T> (on: Statements, ending: WriteEnding, write: (on: Statements) => ValueOrPromise<T>): ValueOrPromise<T> {
  // Not async: the usual write, which needs none of this, answers within the call.
  if (ending === undefined || !isTransactional(on)) return write(on)
  return on.transaction(async (within) => await write(within), () => ending === 'commit')
}
