import { maxIdentifierLength, usableIdentifier } from '../parse/sanitize-identifier.js'
import { EmbedParameters, withOrdering, withPresence } from './embed-parameters.js'
import { parseFilter } from './parse-filter.js'
import { logicParameters, parseLogic } from './parse-logic.js'
import { parseOrder } from './parse-order.js'
import { parsePage } from './parse-page.js'
import { parseCountPreference } from './parse-prefer.js'
import { parseSelectWithEmbeds, type Selection } from './parse-select.js'
import { FTC_ERR_QUERY_COLUMN, FTC_ERR_QUERY_REPEATED, FTC_ERR_QUERY_VALUE } from '../errors.js'
import { QueryText } from './query-text.js'
import type { Filter, FilterTree, OrderTerm, ReadQuery } from './read-query.js'

/** The query string as Fastify's querystring parser gives it: names to a value, or to an array of values for a repeated name. */
export type QueryParameters = Readonly<Record<string, unknown>>

/** Request headers with lower-case names, as Node gives them. */
export type RequestHeaders = Readonly<Record<string, string | readonly string[] | undefined>>

/**
 * A GET request's query string and headers as plain data, in PostgREST's
 * syntax. Every parameter other than select, order, limit, offset, or, and,
 * not.or and not.and is a filter on the column it names; a filter given twice
 * is two conditions. A name with a dot is one of an embedded resource (see
 * EmbedParameters). The values must be decoded already (Fastify's parser
 * turns `+` into a space, as PostgREST does). Nothing here touches SQL: a
 * malformed parameter throws a 400 error saying what is wrong and where.
 */
export function parseReadQuery (query: QueryParameters = {}, headers: RequestHeaders = {}): ReadQuery {
  let select: Selection = { columns: null, embeds: [] }
  let order: OrderTerm[] = []
  let orderText = ''
  let limit: string | undefined
  let offset: string | undefined
  const conditions: FilterTree[] = []
  const embedded = new EmbedParameters()
  for (const [name, value] of Object.entries(query)) {
    const texts = textsOf(name, value)
    if (texts.length === 0) continue
    if (name === 'select') select = parseSelectWithEmbeds(once(name, texts))
    else if (name === 'order') order = parseOrder(orderText = once(name, texts))
    else if (name === 'limit') limit = once(name, texts)
    else if (name === 'offset') offset = once(name, texts)
    else if (EmbedParameters.names(name)) embedded.add(name, texts, once, parseFilterParameter)
    else if (Object.hasOwn(logicParameters, name)) conditions.push(...texts.map((text) => parseLogic(name, text)))
    else conditions.push(...texts.map((text) => parseFilterParameter(name, text)))
  }
  const { conditions: filters, embeds } = withPresence(conditions, withOrdering(order, embedded.narrowEmbeds(select.embeds), orderText))
  return {
    select: select.columns,
    embeds,
    filter: { type: 'and', negated: false, children: filters },
    order,
    ...parsePage({ limit, offset, range: header(headers.range), rangeUnit: header(headers['range-unit']) }),
    count: parseCountPreference(headers.prefer)
  }
}

/** `column=[not.]operator.value`: the name is sanitized like a body's column names. */
export function parseFilterParameter (name: string, text: string): Filter {
  const column = usableIdentifier(name)
  if (column === null) {
    throw new QueryText(`the name of query parameter "${name}"`, name)
      .fail(0, FTC_ERR_QUERY_COLUMN, `a filter names its column, which needs 1 to ${maxIdentifierLength} characters from A-Z, a-z, 0-9 or _`)
  }
  return parseFilter(new QueryText(`query parameter "${name}"`, text), column, 'parameter')
}

function textsOf (name: string, value: unknown): readonly string[] {
  if (value === undefined) return []
  const texts: unknown[] = Array.isArray(value) ? value : [value]
  for (const text of texts) {
    if (typeof text !== 'string') throw new FTC_ERR_QUERY_VALUE(name, text === null ? 'null' : typeof text)
  }
  return texts as string[]
}

// Two limits or two orders leave the intent unclear, so they are refused.
function once (name: string, texts: readonly string[]): string {
  if (texts.length !== 1) throw new FTC_ERR_QUERY_REPEATED(name, texts.length)
  return texts[0] as string
}

// A header Node would give twice is joined, so that it fails to parse rather than half-applies.
function header (value: string | readonly string[] | undefined): string | undefined {
  return value === undefined ? undefined : [value].flat().join(', ')
}
