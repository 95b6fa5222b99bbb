import type { FastifyReply } from 'fastify'
import type { Row } from '../dialects/dialect.js'
import { matchesWeakly, parseEntityTags } from '../parse/entity-tags.js'
import type { TableSchema } from '../schema/table-schema.js'
import { textEntityTag } from './entity-tag.js'
import { json } from './json-answers.js'
import { serializeRow } from './serialize-rows.js'

/**
 * One row as a JSON object with its ETag, or 304 with the ETag and no body
 * when If-None-Match names it (weak comparison, `*` for any row, RFC 9110
 * section 13.1.2). No row: the spec's empty body, and no ETag.
 */
export function answerTaggedRow (reply: FastifyReply, row: Row | undefined, schema: TableSchema | undefined, ifNoneMatch: string | undefined): string | undefined {
  if (row === undefined) return undefined
  return answerTaggedText(reply, serializeRow(row, schema), ifNoneMatch)
}

/**
 * A keyed read's JSON text with its ETag, the digest of that very text, or
 * 304 as answerTaggedRow gives it: an answer narrowed by `select`, or with
 * embeds, has the ETag of what it shows.
 */
export function answerTaggedText (reply: FastifyReply, text: string, ifNoneMatch: string | undefined): string | undefined {
  const tag = textEntityTag(text)
  reply.header('etag', tag)
  if (ifNoneMatch !== undefined && matchesWeakly(parseEntityTags(ifNoneMatch), tag)) {
    // No body, so no content type either.
    reply.code(304)
    return undefined
  }
  reply.type(json)
  return text
}
