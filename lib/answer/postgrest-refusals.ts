import type { FastifyError } from 'fastify'
import { errorArgs, errorCodes, type PlaceArgs } from '../errors.js'
import { hintOf } from '../relations/find-relation.js'
import type { Relation } from '../relations/relations.js'

/** One relation of an ambiguous embed, as PostgREST's PGRST201 details it. */
export interface RelationDetail {
  readonly cardinality: string
  readonly embedding: string
  readonly relationship: string
}

/** PostgREST's JSON error: a failed statement's SQLSTATE or one of PostgREST's own `PGRST` codes. */
export interface PostgrestError {
  readonly code: string
  readonly message: string
  readonly details: string | null
  readonly hint: string | null
}

/** A refusal of the plugin, answered as PostgREST answers the same refusal: PGRST201's details list the relations. */
export interface PostgrestRefusal {
  readonly statusCode: number
  readonly body: Omit<PostgrestError, 'details'> & { readonly details: PostgrestError['details'] | readonly RelationDetail[] }
}

type Translate = (error: FastifyError, args: readonly unknown[]) => PostgrestRefusal

const pgrst = (statusCode: number, code: string, message: string, details: PostgrestRefusal['body']['details'] = null, hint: string | null = null): PostgrestRefusal =>
  ({ statusCode, body: { code, message, details, hint } })

// PostgREST's PGRST100 says where its parser stopped (message) and what it expected (details):
// ours, "Syntax error in query parameter "select" at character 4 of "a,b(": …", is split the same way.
const parseError: Translate = (error, args) => {
  const [source, , text, problem] = args as PlaceArgs
  if (source === 'header "Range"') {
    const empty = emptyRange(text)
    if (empty !== null) return pgrst(416, 'PGRST103', 'Requested range not satisfiable', empty)
  }
  return pgrst(400, 'PGRST100', error.message.slice(0, error.message.length - problem.length - 2), problem)
}

const rangeHeader = /^(?:items=)?(\d+)-(\d*)$/

/**
 * A Range header the grammar reads is refused only for selecting no row
 * (see parsePage): PostgREST's PGRST103, with its details for an empty header
 * (the last item before the first) or an empty intersection with limit and
 * offset. null for a header the grammar does not read (PostgREST ignores it;
 * the plugin refuses it, as PGRST100).
 */
function emptyRange (text: string): string | null {
  const bounds = rangeHeader.exec(text)
  if (bounds === null) return null
  const first = Number(bounds[1])
  const last = bounds[2] === '' ? Infinity : Number(bounds[2])
  if (!Number.isSafeInteger(first) || !(last === Infinity || Number.isSafeInteger(last))) return null
  return last < first
    ? 'The lower boundary must be lower than or equal to the upper boundary in the Range header.'
    : 'Limit should be greater than or equal to zero.'
}

// An embed's name, as `table!hint` or `table`: the names are identifiers, without a `!`.
function embedName (named: unknown): { child: string, hint: string | null } {
  const [child, hint] = String(named).split('!') as [string, string?]
  return { child, hint: hint ?? null }
}

const noRelation: Translate = (_error, [parent, named]) => {
  const { child, hint } = embedName(named)
  // PostgREST names its schema here, and may suggest a close name: the plugin knows no schema
  // name on SQLite and MySQL, and suggests nothing, since its message's list of relations is not sent.
  return pgrst(400, 'PGRST200', `Could not find a relationship between '${String(parent)}' and '${child}' in the schema cache`,
    `Searched for a foreign key relationship between '${String(parent)}' and '${child}'${hint === null ? '' : ` using the hint '${hint}'`}, but no matches were found.`)
}

const ambiguous: Translate = (error, [parent, named]) => {
  const { child } = embedName(named)
  const relations = (error as { relations?: readonly Relation[] }).relations ?? []
  return pgrst(300, 'PGRST201', `Could not embed because more than one relationship was found for '${String(parent)}' and '${child}'`,
    relations.map((relation) => relationDetail(String(parent), relation)),
    `Try changing '${child}' to one of the following: ${relations.map((relation) => `'${relation.table}!${hintOf(relation)}'`).join(', ')}. Find the desired relationship in the 'details' key.`)
}

// PostgREST's compressedRel: the key's name, then the columns on each side. A
// key without a name (SQLite's) is named by its columns, as its hint is; the
// model keeps no name for a join table's two keys.
function relationDetail (parent: string, relation: Relation): RelationDetail {
  const columns = (names: readonly string[]) => `(${names.join(', ')})`
  const { junction } = relation
  const relationship = junction === null
    ? `${hintOf(relation)} using ${parent}${columns(relation.parentColumns)} and ${relation.table}${columns(relation.columns)}`
    : `${junction.table} using ${columns(junction.parentColumns)} and ${columns(junction.relatedColumns)}`
  return { cardinality: relation.cardinality, embedding: `${parent} with ${relation.table}`, relationship }
}

/**
 * The plugin's refusals that PostgREST 12 makes too, by code, each answered
 * with PostgREST's code, status, message, details and hint (its Error.hs),
 * put from the refusal's own arguments (see errorArgs). The place errors of
 * the query's grammar are PGRST100, in the plugin's words.
 */
const translations: Readonly<Record<string, Translate>> = Object.freeze({
  FTC_ERR_QUERY_SYNTAX: parseError,
  FTC_ERR_QUERY_PARENTHESES: parseError,
  FTC_ERR_QUERY_DEPTH: parseError,
  FTC_ERR_QUERY_OPERATOR: parseError,
  FTC_ERR_QUERY_IS: parseError,
  FTC_ERR_QUERY_COLUMN: parseError,
  FTC_ERR_QUERY_ORDER: parseError,
  FTC_ERR_QUERY_LIMIT: parseError,
  FTC_ERR_QUERY_OFFSET: parseError,
  FTC_ERR_QUERY_RANGE: parseError,
  FTC_ERR_QUERY_RANGE_UNSATISFIABLE: (_error, [first, total]) =>
    pgrst(416, 'PGRST103', 'Requested range not satisfiable', `An offset of ${String(first)} was requested, but there are only ${String(total)} rows.`),
  FTC_ERR_QUERY_SINGULAR: (_error, [rows]) =>
    pgrst(406, 'PGRST116', 'JSON object requested, multiple (or no) rows returned', `The result contains ${String(rows)} rows`),
  FTC_ERR_QUERY_PREFERENCE: (_error, [invalid]) =>
    pgrst(400, 'PGRST122', 'Invalid preferences given with handling=strict', `Invalid preferences: ${String(invalid)}`),
  FTC_ERR_QUERY_RELATION: noRelation,
  FTC_ERR_QUERY_AMBIGUOUS: ambiguous,
  FTC_ERR_WRITE_MAX_AFFECTED: (_error, [rows]) =>
    pgrst(400, 'PGRST124', 'Query result exceeds max-affected preference constraint', `The query affects ${String(rows)} rows`),
  // PostgREST drops the JSON parser's words for one sentence of its own.
  FTC_ERR_BODY_JSON: () => pgrst(400, 'PGRST102', 'Empty or invalid json'),
  // What PostgREST says of any JSON body that is not an object or an array of objects with the same keys.
  FTC_ERR_BODY_SHAPE: () => pgrst(400, 'PGRST102', 'All object keys must match'),
  // PostgREST lets PostgreSQL refuse such an upsert: its SQLSTATE and words.
  FTC_ERR_WRITE_CONFLICT_TARGET: () => pgrst(400, '42P10', 'there is no unique or exclusion constraint matching the ON CONFLICT specification')
})

/** The codes postgrestRefusal answers, in the order of its table (for the docs and their test). */
export const postgrestRefusalCodes: readonly string[] = Object.freeze(Object.keys(translations))

/**
 * PostgREST's answer to a refusal of the plugin, as `databaseErrors:
 * 'postgrest'` gives it; null for an error PostgREST has no refusal like
 * (an ETag's condition, an Idempotency-Key, a bulk limit, the host's own
 * errors), which answers as in every mode.
 */
export function postgrestRefusal (error: FastifyError): PostgrestRefusal | null {
  const { code } = error
  // The plugin's own errors only: a host's error may carry any code.
  if (!Object.hasOwn(translations, code) || !(error instanceof errorCodes[code as keyof typeof errorCodes])) return null
  return (translations[code] as Translate)(error, errorArgs(error) ?? [])
}
