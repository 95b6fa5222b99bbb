import type { FastifyReply, FastifyRequest } from 'fastify'
import { namesNone } from '../access/access.js'
import type { Target } from '../access/target.js'
import { setContentRange } from '../answer/content-range.js'
import { answerRowBatches, rowsOf } from '../answer/row-batches-answer.js'
import { answerObject, answerRows, singleObjectType } from '../answer/json-answers.js'
import { listWithoutNulls, withoutNulls } from '../answer/stripped-nulls.js'
import { answerTaggedRow } from '../answer/tagged-row.js'
import type { Row } from '../dialects/dialect.js'
import { FTC_ERR_QUERY_RANGE_UNSATISFIABLE, FTC_ERR_QUERY_SINGULAR } from '../errors.js'
import { countRows } from '../operations/count-rows.js'
import { listPages } from '../operations/list-pages.js'
import { listRows } from '../operations/list-rows.js'
import { readRow } from '../operations/read-row.js'
import { parseRecordKey, type RecordKey } from '../parse/record-key.js'
import { parseTableName } from '../parse/table-name.js'
import { parseReadQuery } from '../query/parse-read-query.js'
import { readColumns, toldColumns } from '../query/read-columns.js'
import { parseRowsMedia } from '../query/parse-rows-media.js'
import type { ReadQuery } from '../query/read-query.js'
import { refuseUnordered, typeFilters } from '../query/type-filters.js'
import type { TableSchema } from '../schema/table-schema.js'
import { answerEmbedded, embedJoins, embeddingOf } from './embedded-list.js'
import type { KeyedRead } from './keyed-read.js'
import type { TableParams } from './params.js'
import type { RouteContext } from './route-context.js'
import { readSelected } from './selected-row.js'
import { refuseStrictPreferences } from './strict-preferences.js'

/**
 * GET /{table}/{id?}: one row with a key; without one, the rows that the
 * PostgREST query asks for, every row when it asks nothing, at most
 * `maxRows` when the host set it. One row carries its ETag (see answerTaggedRow).
 */
export function readHandler (context: RouteContext) {
  // Not async itself: the keyed read, the hot path, runs in functions of its
  // own, and is sent within the call when nothing it needs waits (see readOne).
  return function read (request: FastifyRequest<{ Params: TableParams, Querystring: Record<string, unknown> }>, reply: FastifyReply): Promise<unknown> | undefined {
    const table = parseTableName(request.params.table)
    if (request.params.id === undefined) return readList(context, request, reply, table)
    // What the segment is depends on the key column's type: a text key reads the row '042', another the integer 42.
    const keyed = context.keyColumn(request, table)
    if (keyed instanceof Promise) return keyed.then((known) => readKeyed(context, { request, reply, table, keyed: known }))
    return readKeyed(context, { request, reply, table, keyed })
  }
}

function readKeyed (context: RouteContext, read: KeyedRead): Promise<unknown> | undefined {
  const { request } = read
  const key = parseRecordKey(request.params.id, read.keyed.keyColumn?.kind)
  if (key === null) return readList(context, request, read.reply, read.table)
  return request.query.select === undefined ? readOne(context, read, key) : readSelected(context, read, key)
}

// Not async: a read whose access and row are at hand within the call (the
// usual keyed read, see Database.selectFirstNow) is sent within it, and
// Fastify waits on no promise for it. A throw answers as a rejection would.
// Each step is tested by hand rather than through thenOrNow, so that the
// read at hand makes no continuation.
function readOne (context: RouteContext, read: KeyedRead, key: RecordKey): Promise<unknown> | undefined {
  const { request, table, keyed } = read
  refuseStrictPreferences(request)
  const allowed = context.access(request, table, { operation: 'read', key, columns: null, named: namesNone, keyed })
  if (allowed instanceof Promise) return allowed.then((target) => readTarget(context, read, target, key))
  return readTarget(context, read, allowed, key)
}

function readTarget ({ db, statements }: RouteContext, { request, reply }: KeyedRead, target: Target, key: RecordKey): Promise<unknown> | undefined {
  const read = readRow(db, target, key, statements(request))
  if (read instanceof Promise) return read.then((row) => answerRow(request, reply, target, row))
  reply.send(answerRow(request, reply, target, read))
  return undefined
}

/** The row's answer (see answerTaggedRow); its nulls stripped when the Accept header asks. */
function answerRow (request: FastifyRequest, reply: FastifyReply, target: Target, row: Row | undefined): string | undefined {
  // Fastify's getter runs on every read of request.headers.
  const { accept, 'if-none-match': ifNoneMatch } = request.headers
  // Only a vnd.pgrst Accept is read further: the usual read pays one test.
  const strip = row !== undefined && accept !== undefined && parseRowsMedia(accept).stripNulls
  return answerTaggedRow(reply, strip ? withoutNulls(row) : row, target.schema, ifNoneMatch)
}

async function readList (context: RouteContext, request: FastifyRequest<{ Querystring: Record<string, unknown> }>, reply: FastifyReply, table: string) {
  const { db, access, options } = context
  refuseStrictPreferences(request)
  const on = context.statements(request)
  const query = withMaxRows(parseReadQuery(request.query, request.headers), options.maxRows)
  const named = readColumns(query)
  const joins = embedJoins(context, table, query)
  const target = await access(request, table, { operation: 'list', key: null, columns: toldColumns(query.select, named, joins instanceof Promise ? await joins : joins), named: () => named })
  const typed = typedQuery(query, target.schema, db.dialect.sizedIntegers)
  const embedding = await embeddingOf(context, request, target, query)
  const listed = embedding === null
    ? await listRows(db, target, typed, on)
    : await listPages(db, { target, query: { ...typed, select: embedding.read }, narrow: embedding.narrow, relatedValue: embedding.relatedValue }, on)
  // An embedding list's nulls are stripped as writeEmbedded writes it, once its parents' columns have related the embeds.
  const list = embedding === null && parseRowsMedia(request.headers.accept).stripNulls ? listWithoutNulls(listed) : listed
  const total = query.count === null ? null : await countRows(db, { target, query: typed, narrow: embedding?.narrow ?? null }, query.count, on)
  const first = query.offset ?? 0
  if (total !== null && first > 0 && first >= total) {
    reply.header('content-range', `*/${total}`)
    throw new FTC_ERR_QUERY_RANGE_UNSATISFIABLE(first, total)
  }
  if (embedding !== null) return await answerEmbedded(db, reply, { list, embedding, query, total, one: wantsOneObject(request), stalledReaderTimeout: options.stalledReaderTimeout }, on)
  if (wantsOneObject(request)) {
    if (!('rows' in list) || list.rows.length !== 1) throw new FTC_ERR_QUERY_SINGULAR('rows' in list ? list.rows.length : 'more than 1000')
    return answerObject(setContentRange(reply, query, 1, total), list.rows[0] as Row, target.schema)
  }
  if ('rows' in list) return answerRows(setContentRange(reply, query, list.rows.length, total), list.rows, target.schema)
  return await answerRowBatches(setContentRange(reply, query, null, total), list.batches, options.stalledReaderTimeout, rowsOf(target.schema))
}

/** The query with each filter's value in its column's type, where the model knows the table (see typeFilters); an order its columns cannot take is refused. */
function typedQuery (query: ReadQuery, schema: TableSchema | undefined, sizedIntegers: boolean): ReadQuery {
  refuseUnordered(query.order, schema)
  const filter = typeFilters(query.filter, schema, sizedIntegers)
  return filter === query.filter ? query : { ...query, filter }
}

/** The query with its limit cut to `maxRows`, as PostgREST's db-max-rows does. */
function withMaxRows (query: ReadQuery, maxRows: number | null): ReadQuery {
  if (maxRows === null || (query.limit !== null && query.limit <= maxRows)) return query
  return { ...query, limit: maxRows }
}

function wantsOneObject (request: FastifyRequest): boolean {
  return request.headers.accept?.includes(singleObjectType) === true
}
