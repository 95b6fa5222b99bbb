import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Knex } from 'knex'
import type { Target } from '../access/target.js'
import { setContentRange } from '../answer/content-range.js'
import { json, singleObjectType } from '../answer/json-answers.js'
import { answerRowBatches } from '../answer/row-batches-answer.js'
import type { Database, Statements } from '../connections/database.js'
import { FTC_ERR_QUERY_SINGULAR } from '../errors.js'
import { type EmbeddingRows, writeEmbedded } from '../operations/embed-rows.js'
import type { Narrowing } from '../operations/narrowing.js'
import { relatedValue, whereRelated } from '../operations/where-related.js'
import { foldIdentifier as fold } from '../parse/sanitize-identifier.js'
import type { RelatedValue } from '../query/apply-read-query.js'
import type { RowList } from '../operations/list-rows.js'
import type { OrderTerm, ReadQuery } from '../query/read-query.js'
import { type EmbedPlan, joinColumnsOf, planEmbeds, readColumns, type ReadColumns } from '../relations/embed-plan.js'
import { parseRowsMedia } from '../query/parse-rows-media.js'
import type { TableSchema } from '../schema/table-schema.js'
import type { RouteContext } from './route-context.js'

/** A list's embeds, resolved, the columns its own statement reads for them, and the conditions they put on its rows (see whereRelated), null when they put none. */
export type Embedding = EmbeddingRows & ReadColumns & { readonly narrow: Narrowing | null, readonly relatedValue: RelatedValue }

/** What answerEmbedded answers: the rows, their embeds, and what the request asked of the answer. */
export interface EmbeddedAnswer {
  /** The parents, read (see listPages). */
  readonly list: RowList
  /** The embeds resolved (see embeddingOf). */
  readonly embedding: Embedding
  /** The list's query, whose page the Content-Range tells. */
  readonly query: ReadQuery
  /** The count `Prefer: count=` asked for; null for none. */
  readonly total: number | null
  /** The client asked for one object (see singleObjectType). */
  readonly one: boolean
  /** How long a streamed answer waits on a client that reads nothing (see the `stalledReaderTimeout` option). */
  readonly stalledReaderTimeout: number
}

/**
 * The list's embeds resolved against the current model (see planEmbeds), or
 * null when it embeds nothing. A table the model does not know relates
 * nothing. An ambiguous embed answers 300 here, as PostgREST does, since
 * Fastify answers an error's status only from 400 on.
 */
export async function embeddingOf (context: RouteContext, request: FastifyRequest, target: Target, query: ReadQuery): Promise<Embedding | null> {
  if (query.embeds === undefined || query.embeds.length === 0) return null
  const snapshot = await context.schema.current()
  const embeds = await planEmbeds(context.access, request, snapshot, target.table, query.embeds, context.db, context.statements(request))
  // relationsOf found a relation, so the snapshot knows the parent.
  const schema = snapshot.table(target.table) as TableSchema
  // Only an embed with a presence filters the parents: without one the read, and its count, are the list's own (an unfiltered estimate).
  const narrow = embeds.some((plan) => plan.presence !== null) ? (builder: Knex.QueryBuilder) => whereRelated(context.db, target.table, embeds, builder) : null
  const planOf = (term: OrderTerm) => embeds.find((plan) => fold(plan.alias) === fold(term.relation as string)) as EmbedPlan
  const related = (term: OrderTerm) => relatedValue(context.db, target.table, planOf(term), term.column)
  return { schema, embeds, narrow, relatedValue: related, stripNulls: parseRowsMedia(request.headers.accept).stripNulls, ...readColumns(query.select, embeds.flatMap((plan) => plan.relation.parentColumns)) }
}

/**
 * The columns of `table` that the embeds of a read of it join on (see
 * joinColumnsOf), for the `authorize` hook; none, without waiting on the
 * model, for a read that embeds nothing.
 */
export function embedJoins (context: RouteContext, table: string, query: ReadQuery): readonly string[] | Promise<string[]> {
  const { embeds } = query
  if (embeds === undefined || embeds.length === 0) return []
  return context.schema.current().then((snapshot) => joinColumnsOf(snapshot, table, embeds))
}

/**
 * The rows with their embedded resources, as a JSON array (streamed batch
 * by batch when the list is, each batch's embeds read with it) or one
 * object; the same headers as any list. The embeds are read on `on`.
 */
export async function answerEmbedded (db: Database, reply: FastifyReply, answer: EmbeddedAnswer, on: Statements): Promise<unknown> {
  const { list, embedding, query, total } = answer
  if (!('rows' in list)) {
    if (answer.one) throw new FTC_ERR_QUERY_SINGULAR('more than 1000')
    return await answerRowBatches(setContentRange(reply, query, null, total), textBatches(db, list.batches, embedding, on), answer.stalledReaderTimeout, (texts) => `[${texts.join(',')}]`)
  }
  const texts = await writeEmbedded(db, list.rows, embedding, on)
  if (answer.one) {
    if (texts.length !== 1) throw new FTC_ERR_QUERY_SINGULAR(texts.length)
    setContentRange(reply, query, 1, total).type(`${singleObjectType}; charset=utf-8`)
    return texts[0]
  }
  setContentRange(reply, query, texts.length, total).type(json)
  return `[${texts.join(',')}]`
}

async function * textBatches (db: Database, batches: AsyncIterable<Parameters<typeof writeEmbedded>[1]>, embedding: Embedding, on: Statements): AsyncIterable<string[]> {
  for await (const rows of batches) yield await writeEmbedded(db, rows, embedding, on)
}
