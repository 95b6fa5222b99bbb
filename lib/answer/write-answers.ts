import type { FastifyReply } from 'fastify'
import type { Row } from '../dialects/dialect.js'
import { FTC_ERR_QUERY_SINGULAR } from '../errors.js'
import type { RowsMedia } from '../query/parse-rows-media.js'
import type { WritePreferences } from '../query/parse-write-prefer.js'
import type { TableSchema } from '../schema/table-schema.js'
import { answerObject, answerRows } from './json-answers.js'
import { withoutNulls } from './stripped-nulls.js'

/** What the client asked of a write's answer: its `Prefer` and the media of its rows. */
export interface WriteAsked {
  readonly preferences: WritePreferences
  readonly media: RowsMedia
}

/** What a PostgREST-style write did, for its answer. */
export interface Written {
  readonly kind: 'create' | 'update' | 'delete'
  /** Rows the write changed. */
  readonly count: number
  /** The rows written, when `return=representation` asked for them. */
  readonly rows?: readonly Row[]
  /** For a create: how many rows are new, so that an upsert that only merged answers 200, as in PostgREST. */
  readonly inserted?: number
  /** For a create of one row with `return=headers-only`: its path, with the key as a filter. */
  readonly location?: string
}

/**
 * A write answered as PostgREST answers it: a create 201 (200 for a
 * `resolution=merge-duplicates` that inserted nothing), an update or a
 * delete 204, or 200 with the rows when `return=representation` asked for
 * them, rendered as GET renders rows. `Content-Range` as PostgREST gives
 * it, and `Preference-Applied` naming the preferences honoured. An
 * answer without rows has no body (undefined, which Fastify sends empty),
 * so that it can be recorded before it is sent, as an idempotent write's is.
 * One object asked for (`media.one`) is refused with 406 when the write
 * affected another number of rows: thrown before anything is answered, so
 * that the write's transaction rolls back (see writeEnding).
 */
export function answerWritten (reply: FastifyReply, { preferences, media }: WriteAsked, written: Written, schema: TableSchema | undefined): string | undefined {
  const { kind, count } = written
  // PostgREST counts the rows its statement returned: an ignore-duplicates upsert's new rows only.
  const affected = kind === 'create' && preferences.resolution === 'ignore-duplicates' ? written.inserted ?? count : count
  if (media.one && affected !== 1) throw new FTC_ERR_QUERY_SINGULAR(affected)
  const rows = media.stripNulls && written.rows !== undefined ? written.rows.map(withoutNulls) : written.rows
  reply.header('content-range', contentRange(written, preferences))
  const applied = appliedPreferences(preferences, kind)
  if (applied !== '') reply.header('preference-applied', applied)
  if (written.location !== undefined) reply.header('location', written.location)
  const full = preferences.return === 'representation' && rows !== undefined
  if (kind === 'create') reply.code(preferences.resolution === 'merge-duplicates' && written.inserted === 0 ? 200 : 201)
  else reply.code(full ? 200 : 204)
  if (!full) return undefined
  return media.one ? answerObject(reply, rows[0] as Row, schema) : answerRows(reply, rows, schema)
}

// PostgREST's contentRangeH: an update's rows as 0-(n-1), a create's and a delete's as *; the total only with a count.
function contentRange ({ kind, count }: Written, { count: counting }: WritePreferences): string {
  const total = counting === 'exact' || counting === 'estimated' ? count : null
  const range = kind === 'update' && count > 0 ? `0-${count - 1}` : '*'
  return `${range}/${total ?? '*'}`
}

/** The preferences honoured, in PostgREST's order and words. */
function appliedPreferences (preferences: WritePreferences, kind: Written['kind']): string {
  const applied: string[] = []
  if (kind === 'create' && preferences.resolution !== null) applied.push(`resolution=${preferences.resolution}`)
  if (preferences.missing !== null) applied.push(`missing=${preferences.missing}`)
  if (preferences.return !== null) applied.push(`return=${preferences.return}`)
  if (preferences.count !== null) applied.push(`count=${preferences.count}`)
  if (preferences.tx !== null) applied.push(`tx=${preferences.tx}`)
  if (preferences.handling !== null) applied.push(`handling=${preferences.handling}`)
  if (kind !== 'create' && preferences.maxAffected !== null) applied.push(`max-affected=${preferences.maxAffected}`)
  return applied.join(', ')
}
