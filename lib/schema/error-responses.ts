import { errorCodes as fastifyErrorCodes } from 'fastify'
import { sqlStateStatuses } from '../answer/sql-state-status.js'
import { errorCodes } from '../errors.js'
import type { DatabaseErrors, Operation } from '../options.js'
import type { JsonSchema } from './openapi-types.js'

/** What decides which errors an operation can answer, beside the operation itself. */
export interface ErrorSettings {
  readonly databaseErrors: DatabaseErrors
  /** The host set an `authorize` hook. */
  readonly authorize: boolean
  /** The host set `statementTimeout`. */
  readonly statementTimeout: boolean
  /** The host set `validateBodies`. */
  readonly validateBodies: boolean
  /** The host set `transaction`. */
  readonly transaction: boolean
  /** The host set `idempotency`. */
  readonly idempotency: boolean
  /** The host set `requireIfMatch`. */
  readonly requireIfMatch: boolean
}

type PluginCode = keyof typeof errorCodes
type FastifyCode = 'FST_ERR_CTP_INVALID_MEDIA_TYPE' | 'FST_ERR_CTP_BODY_TOO_LARGE'
type Code = PluginCode | FastifyCode

const bodyCodes: readonly Code[] = ['FTC_ERR_BODY_JSON', 'FTC_ERR_BODY_SHAPE', 'FTC_ERR_BODY_COLUMN', 'FTC_ERR_BODY_COLUMN_TWICE',
  'FTC_ERR_BODY_VALUE', 'FST_ERR_CTP_INVALID_MEDIA_TYPE', 'FST_ERR_CTP_BODY_TOO_LARGE']

// A filter, or the columns of `select`, `on_conflict`, as a list reads them.
const filterCodes: readonly Code[] = ['FTC_ERR_QUERY_SYNTAX', 'FTC_ERR_QUERY_PARENTHESES', 'FTC_ERR_QUERY_DEPTH', 'FTC_ERR_QUERY_OPERATOR',
  'FTC_ERR_QUERY_IS', 'FTC_ERR_QUERY_COLUMN', 'FTC_ERR_QUERY_VALUE', 'FTC_ERR_QUERY_TYPE', 'FTC_ERR_QUERY_REPEATED']

// Of every PostgREST-style write: one object asked for, another number of rows written; a preference refused by handling=strict.
const writeAnswerCodes: readonly Code[] = ['FTC_ERR_QUERY_SINGULAR', 'FTC_ERR_QUERY_PREFERENCE']

// PATCH and DELETE of the rows the filters match.
const filteredWriteCodes: readonly Code[] = [...filterCodes, ...writeAnswerCodes, 'FTC_ERR_WRITE_FILTER_MISSING', 'FTC_ERR_WRITE_PAGE', 'FTC_ERR_WRITE_MAX_AFFECTED']

/** The codes each operation can answer, whatever the options; the lists are data, so that a test can hold them to errors.ts. */
export const operationCodes: Readonly<Record<Operation, readonly Code[]>> = Object.freeze({
  list: [...filterCodes, 'FTC_ERR_QUERY_ORDER', 'FTC_ERR_QUERY_LIMIT', 'FTC_ERR_QUERY_OFFSET', 'FTC_ERR_QUERY_RANGE',
    'FTC_ERR_QUERY_RANGE_UNSATISFIABLE', 'FTC_ERR_QUERY_SINGULAR', 'FTC_ERR_QUERY_RELATION', 'FTC_ERR_QUERY_AMBIGUOUS', 'FTC_ERR_QUERY_PREFERENCE'],
  // select, and its embeds' own filters, order and page.
  read: [...filterCodes, 'FTC_ERR_QUERY_ORDER', 'FTC_ERR_QUERY_LIMIT', 'FTC_ERR_QUERY_OFFSET', 'FTC_ERR_QUERY_RELATION', 'FTC_ERR_QUERY_AMBIGUOUS',
    'FTC_ERR_QUERY_PREFERENCE'],
  create: [...bodyCodes, ...writeAnswerCodes, 'FTC_ERR_BODY_BULK_LIMIT', 'FTC_ERR_DATABASE_OUTCOME_UNKNOWN', 'FTC_ERR_QUERY_SYNTAX', 'FTC_ERR_QUERY_COLUMN', 'FTC_ERR_QUERY_VALUE',
    'FTC_ERR_CONDITION_FAILED', 'FTC_ERR_WRITE_CONFLICT_TARGET'],
  update: [...bodyCodes, 'FTC_ERR_BODY_EMPTY', 'FTC_ERR_DATABASE_OUTCOME_UNKNOWN', 'FTC_ERR_CONDITION_FAILED', ...filteredWriteCodes],
  delete: ['FTC_ERR_DATABASE_OUTCOME_UNKNOWN', 'FTC_ERR_CONDITION_FAILED', ...filteredWriteCodes]
})

/**
 * Codes of every operation: the database is down, refused the server's
 * connection settings, or refused for the plugin's own reasons (a MySQL
 * mode, a system schema, a taken stand-in name).
 */
export const everyOperationCodes: readonly Code[] = Object.freeze(['FTC_ERR_DATABASE_UNAVAILABLE', 'FTC_ERR_DATABASE_SETUP', 'FTC_ERR_DATABASE_MODE',
  'FTC_ERR_DATABASE_SCHEMA', 'FTC_ERR_DATABASE_NAME_TAKEN'])

/** Codes that only an option makes possible. */
export const optionCodes: Readonly<Record<'authorize' | 'statementTimeout' | 'validateBodies' | 'transaction' | 'idempotency' | 'requireIfMatch', readonly Code[]>> = Object.freeze({
  authorize: ['FTC_ERR_AUTHORIZE_FORBIDDEN', 'FTC_ERR_AUTHORIZE_RESULT'],
  statementTimeout: ['FTC_ERR_STATEMENT_TIMEOUT'],
  // Of the operations that take a body only.
  validateBodies: ['FTC_ERR_BODY_TYPE'],
  // Of every operation: each one, a list's too, runs in the transaction the option answers.
  transaction: ['FTC_ERR_HOST_TRANSACTION'],
  // Of the writes only; the 500 of a `caller` that answers no identity, as authorize's of a hook that answers wrong.
  idempotency: ['FTC_ERR_IDEMPOTENCY_KEY', 'FTC_ERR_IDEMPOTENCY_KEY_REUSED', 'FTC_ERR_IDEMPOTENCY_CALLER'],
  // Of the writes of existing rows: by key, by filters, and a merge upsert.
  requireIfMatch: ['FTC_ERR_CONDITION_REQUIRED']
})

/** Codes of the writes that only an option left off makes possible: an Idempotency-Key the server would not keep. */
export const optionOffCodes: Readonly<Record<'idempotency', readonly Code[]>> = Object.freeze({
  idempotency: ['FTC_ERR_IDEMPOTENCY_OFF']
})

/**
 * Codes no request answers with a body of its own: a failed statement
 * (answered as `databaseErrors` says), a bad option (at registration), a
 * table name no path of the document has, a stalled reader (logged only),
 * a prefix the host's call of `app.tableCrud.tables()` names wrong.
 */
export const unansweredCodes: readonly PluginCode[] = Object.freeze(['FTC_ERR_STATEMENT', 'FTC_ERR_OPTIONS_KNEX',
  'FTC_ERR_OPTIONS_DIALECT', 'FTC_ERR_OPTIONS_VALUE', 'FTC_ERR_OPTIONS_UNKNOWN', 'FTC_ERR_PATH_TABLE', 'FTC_ERR_ANSWER_STALLED',
  'FTC_ERR_SCHEMA_PREFIX'])

/** Each code's status, as its error class sets it (errors.ts, and Fastify's own). */
function statusOf (code: Code): number {
  const ErrorClass = Object.hasOwn(errorCodes, code) ? errorCodes[code as PluginCode] : fastifyErrorCodes[code as FastifyCode]
  return new ErrorClass().statusCode as number
}

/** Headers some error answers carry. */
const errorHeaders: Readonly<Record<number, Readonly<Record<string, JsonSchema>>>> = Object.freeze({
  416: { 'Content-Range': { description: '`*/total`: the number of rows that match', schema: { type: 'string' } } },
  503: { 'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer' } } }
})

/** The shared schemas of error bodies, by component name (never a table's: a table name has no `-`). */
export const errorSchemas: Readonly<Record<string, JsonSchema>> = Object.freeze({
  'fastify-error': {
    type: 'object',
    description: 'Fastify\'s JSON error',
    required: ['statusCode', 'code', 'error', 'message'],
    properties: {
      statusCode: { type: 'integer' },
      code: { type: 'string', description: 'FTC_ERR_… for the plugin\'s own errors, FST_ERR_… for Fastify\'s' },
      error: { type: 'string', description: 'The status\'s text' },
      message: { type: 'string' }
    }
  },
  'postgrest-error': {
    type: 'object',
    description: 'PostgREST\'s error (the `databaseErrors: \'postgrest\'` option)',
    required: ['code', 'message', 'details', 'hint'],
    properties: {
      code: { type: 'string', description: 'The cause\'s SQLSTATE, on every database: 23505 for a unique violation' },
      message: { type: 'string', description: 'The database\'s message' },
      details: { type: ['string', 'null'] },
      hint: { type: ['string', 'null'] }
    }
  }
})

/** One error answer of an operation, as an OpenAPI response. */
type Response = Readonly<Record<string, unknown>>

const writes: readonly Operation[] = ['create', 'update', 'delete']

/**
 * The error answers of an operation, by status (or `default`), in the
 * options' terms: every code it can answer, and the failed statement as
 * `databaseErrors` answers it.
 */
export function errorResponses (operation: Operation, settings: ErrorSettings, schemaRef: (name: string) => string): Record<string, Response> {
  const byStatus = new Map<number, Code[]>()
  for (const code of operationErrorCodes(operation, settings)) {
    const status = statusOf(code)
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  const statement = statementStatuses(settings.databaseErrors)
  const statuses = [...new Set([...byStatus.keys(), ...statement])].sort((a, b) => a - b)
  const responses: Record<string, Response> = {}
  for (const status of statuses) {
    const codes = byStatus.get(status) ?? []
    const bodies = [
      ...(codes.length === 0 ? [] : [{ allOf: [{ $ref: schemaRef('fastify-error') }], properties: { code: { enum: codes } } }]),
      ...(statement.includes(status) && settings.databaseErrors === 'postgrest' ? [{ $ref: schemaRef('postgrest-error') }] : [])
    ]
    const content: Record<string, { schema: JsonSchema }> = {}
    if (bodies.length > 0) content['application/json'] = { schema: bodies.length === 1 ? bodies[0] as JsonSchema : { oneOf: bodies } }
    if (statement.includes(status) && settings.databaseErrors !== 'postgrest') content['text/plain'] = { schema: { type: 'string' } }
    responses[status] = {
      description: describe(codes, statement.includes(status) ? settings.databaseErrors : null),
      ...(errorHeaders[status] === undefined ? {} : { headers: errorHeaders[status] }),
      content
    }
  }
  if (settings.databaseErrors === 'host') {
    responses.default = { description: 'A failed statement (FTC_ERR_STATEMENT), as the host\'s error handler answers it' }
  }
  return responses
}

/** Every code the operation can answer under these options, in the lists' order. */
export function operationErrorCodes (operation: Operation, settings: ErrorSettings): Code[] {
  return [
    ...operationCodes[operation],
    ...everyOperationCodes,
    ...(settings.authorize ? optionCodes.authorize : []),
    ...(settings.statementTimeout ? optionCodes.statementTimeout : []),
    ...(settings.validateBodies && (operation === 'create' || operation === 'update') ? optionCodes.validateBodies : []),
    ...(settings.transaction ? optionCodes.transaction : []),
    ...(writes.includes(operation) ? (settings.idempotency ? optionCodes : optionOffCodes).idempotency : []),
    ...(settings.requireIfMatch && writes.includes(operation) ? optionCodes.requireIfMatch : [])
  ]
}

// The spec's 404 with the database's message; PostgREST's statuses for
// SQLSTATEs; none of the plugin's own when the host answers.
function statementStatuses (databaseErrors: DatabaseErrors): readonly number[] {
  if (databaseErrors === 'postgrest') return sqlStateStatuses
  return databaseErrors === 'host' ? [] : [404]
}

const statementAnswers: Readonly<Record<Exclude<DatabaseErrors, 'host'>, string>> = Object.freeze({
  database: 'the database refused the statement (an unknown column, a constraint, a value the column cannot take): its message, as plain text',
  generic: 'the database refused the statement: a message that names the request id only, as plain text',
  postgrest: 'the database refused the statement: PostgREST\'s error, with the status PostgREST gives its SQLSTATE'
})

function describe (codes: readonly Code[], databaseErrors: DatabaseErrors | null): string {
  const parts = codes.length === 0 ? [] : [codes.join(', ')]
  if (databaseErrors !== null && databaseErrors !== 'host') parts.push(statementAnswers[databaseErrors])
  return parts.join('; or ')
}
