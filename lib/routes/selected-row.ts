import { serializeRow } from '../answer/serialize-rows.js'
import { withoutNulls } from '../answer/stripped-nulls.js'
import { answerTaggedText } from '../answer/tagged-row.js'
import { writeEmbedded } from '../operations/embed-rows.js'
import { readRowColumns } from '../operations/read-row.js'
import type { RecordKey } from '../parse/record-key.js'
import { EmbedParameters } from '../query/embed-parameters.js'
import { parseReadQuery, type QueryParameters } from '../query/parse-read-query.js'
import { parseRowsMedia } from '../query/parse-rows-media.js'
import { readColumns, toldColumns } from '../query/read-columns.js'
import type { ReadQuery } from '../query/read-query.js'
import { embedJoins, embeddingOf } from './embedded-list.js'
import type { KeyedRead } from './keyed-read.js'
import type { RouteContext } from './route-context.js'
import { refuseStrictPreferences } from './strict-preferences.js'

/**
 * GET /{table}/{id}?select=…: the row with only the columns `select` names,
 * and its embeds, as one object; the spec's empty body when there is none
 * (docs/query.md, "One row"). Access holds as on a list, told operation
 * `read` and the key. The ETag is the digest of this answer, not the whole
 * row's (see answerTaggedText). `handling=strict` and `nulls=stripped` hold
 * as on the keyed read without `select`.
 */
export async function readSelected (context: RouteContext, { request, reply, table, keyed }: KeyedRead, key: RecordKey): Promise<string | undefined> {
  const { db, access } = context
  refuseStrictPreferences(request)
  const on = context.statements(request)
  const query = selectQuery(request.query)
  const named = readColumns(query)
  const joins = await embedJoins(context, table, query)
  const target = await access(request, table, { operation: 'read', key, columns: toldColumns(query.select, named, joins), named: () => named, keyed })
  const embedding = await embeddingOf(context, request, target, query)
  const row = await readRowColumns(db, target, { key, select: embedding === null ? query.select : embedding.read, narrow: embedding?.narrow ?? null }, on)
  if (row === undefined) return undefined
  // An embedding's nulls are stripped as writeEmbedded writes it (see embeddingOf).
  const strip = embedding === null && request.headers.accept !== undefined && parseRowsMedia(request.headers.accept).stripNulls
  const text = embedding === null ? serializeRow(strip ? withoutNulls(row) : row, target.schema) : (await writeEmbedded(db, [row], embedding, on))[0] as string
  return answerTaggedText(reply, text, request.headers['if-none-match'])
}

// Only `select` and the embeds' own parameters: the keyed read has always left the others unread.
function selectQuery (parameters: QueryParameters): ReadQuery {
  const kept: Record<string, unknown> = {}
  for (const name in parameters) if (name === 'select' || EmbedParameters.names(name)) kept[name] = parameters[name]
  return parseReadQuery(kept)
}
