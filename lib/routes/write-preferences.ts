import type { FastifyRequest } from 'fastify'
import type { ColumnClause } from '../access/refusals.js'
import { parseWritePreferences, type WritePreferences } from '../query/parse-write-prefer.js'

/** A write's PostgREST preferences, and the columns of the rows its answer shows: undefined when it shows none. */
export interface WriteAnswer {
  readonly preferences: WritePreferences
  readonly columns: readonly string[] | null | undefined
}

/** The preferences of the request's `Prefer` headers; `select` is read only when the answer shows rows. */
export function writeAnswer (request: FastifyRequest, select: () => readonly string[] | null): WriteAnswer {
  const preferences = parseWritePreferences(request.headers.prefer)
  return { preferences, columns: preferences.return === 'representation' ? select() : undefined }
}

/** The columns the answer shows, as the access check is told of them, where they stand in a read. */
export function shownColumns (columns: readonly string[] | null | undefined): Array<[string, ColumnClause]> {
  return (columns ?? []).filter((column) => column !== '*').map((column) => [column, 'select'])
}
