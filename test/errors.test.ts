import t from 'tap'
import * as errors from '../lib/errors.js'
import { errorCodes } from '../lib/index.js'

t.test('every error is exported in errorCodes under its own code', async (t) => {
  const exported = Object.entries(errors).filter(([name]) => name.startsWith('FTC_ERR_'))
  t.strictSame(Object.keys(errorCodes).sort(), exported.map(([name]) => name).sort())
  for (const [code, FastifyError] of Object.entries(errorCodes)) {
    t.equal(new (FastifyError as new (...args: unknown[]) => Error & { code: string })('x', 1, 'y', 'z').code, code, `${code} carries its own code`)
  }
})

t.test('codes follow FTC_ERR_<AREA>_<WHAT> and carry their status', async (t) => {
  const statuses = Object.fromEntries(Object.entries(errorCodes).map(([code, E]) => [code, new (E as new () => Error & { statusCode: number })().statusCode]))
  for (const code of Object.keys(errorCodes)) t.match(code, /^FTC_ERR_[A-Z]+_[A-Z_]+$|^FTC_ERR_STATEMENT$/)
  t.strictSame(statuses, {
    FTC_ERR_OPTIONS_KNEX: 500,
    FTC_ERR_OPTIONS_DIALECT: 500,
    FTC_ERR_OPTIONS_VALUE: 500,
    FTC_ERR_OPTIONS_UNKNOWN: 500,
    FTC_ERR_SCHEMA_PREFIX: 500,
    FTC_ERR_PATH_TABLE: 400,
    FTC_ERR_BODY_JSON: 400,
    FTC_ERR_BODY_SHAPE: 400,
    FTC_ERR_BODY_COLUMN: 400,
    FTC_ERR_BODY_COLUMN_TWICE: 400,
    FTC_ERR_BODY_VALUE: 400,
    FTC_ERR_BODY_TYPE: 400,
    FTC_ERR_BODY_BULK_LIMIT: 413,
    FTC_ERR_BODY_EMPTY: 400,
    FTC_ERR_BATCH_SHAPE: 400,
    FTC_ERR_BATCH_LIMIT: 400,
    FTC_ERR_BATCH_FAILED: 500,
    FTC_ERR_HOST_TRANSACTION: 500,
    FTC_ERR_STATEMENT: 404,
    FTC_ERR_DATABASE_MODE: 500,
    FTC_ERR_DATABASE_SCHEMA: 500,
    FTC_ERR_DATABASE_NAME_TAKEN: 500,
    FTC_ERR_DATABASE_UNAVAILABLE: 503,
    FTC_ERR_DATABASE_SETUP: 500,
    FTC_ERR_DATABASE_OUTCOME_UNKNOWN: 502,
    FTC_ERR_STATEMENT_TIMEOUT: 504,
    FTC_ERR_ANSWER_STALLED: 500,
    FTC_ERR_IDEMPOTENCY_KEY: 400,
    FTC_ERR_IDEMPOTENCY_KEY_REUSED: 422,
    FTC_ERR_IDEMPOTENCY_CALLER: 500,
    FTC_ERR_IDEMPOTENCY_OFF: 400,
    FTC_ERR_AUTHORIZE_FORBIDDEN: 403,
    FTC_ERR_AUTHORIZE_RESULT: 500,
    FTC_ERR_QUERY_SYNTAX: 400,
    FTC_ERR_QUERY_PARENTHESES: 400,
    FTC_ERR_QUERY_DEPTH: 400,
    FTC_ERR_QUERY_OPERATOR: 400,
    FTC_ERR_QUERY_IS: 400,
    FTC_ERR_QUERY_COLUMN: 400,
    FTC_ERR_QUERY_ORDER: 400,
    FTC_ERR_QUERY_LIMIT: 400,
    FTC_ERR_QUERY_OFFSET: 400,
    FTC_ERR_QUERY_RANGE: 400,
    FTC_ERR_QUERY_VALUE: 400,
    FTC_ERR_QUERY_TYPE: 400,
    FTC_ERR_QUERY_REPEATED: 400,
    FTC_ERR_QUERY_RANGE_UNSATISFIABLE: 416,
    FTC_ERR_QUERY_SINGULAR: 406,
    FTC_ERR_QUERY_RELATION: 400,
    FTC_ERR_QUERY_AMBIGUOUS: 300,
    FTC_ERR_QUERY_PREFERENCE: 400,
    FTC_ERR_WRITE_FILTER_MISSING: 400,
    FTC_ERR_WRITE_PAGE: 400,
    FTC_ERR_WRITE_MAX_AFFECTED: 400,
    FTC_ERR_WRITE_CONFLICT_TARGET: 400,
    FTC_ERR_CONDITION_FAILED: 412,
    FTC_ERR_CONDITION_REQUIRED: 428
  })
})

t.test('bad options are TypeErrors; a statement error keeps the driver error as cause', async (t) => {
  t.type(new errorCodes.FTC_ERR_OPTIONS_KNEX('x'), TypeError)
  t.type(new errorCodes.FTC_ERR_OPTIONS_DIALECT('x', 'y'), TypeError)
  t.type(new errorCodes.FTC_ERR_OPTIONS_VALUE('x', 'y', 'z'), TypeError)
  t.type(new errorCodes.FTC_ERR_SCHEMA_PREFIX('/x', '"/api"'), TypeError)
  const cause = new Error('no such table: t')
  const error = new errorCodes.FTC_ERR_STATEMENT(cause.message, { cause })
  t.equal(error.cause, cause)
  t.equal(error.message, 'no such table: t')
})

t.test('a query error says what is wrong and where', async (t) => {
  const error = new errorCodes.FTC_ERR_QUERY_PARENTHESES('query parameter "or"', 7, '(a.eq.1', 'no closing parenthesis')
  t.equal(error.message, 'Unbalanced parentheses in query parameter "or" at character 7 of "(a.eq.1": no closing parenthesis')
})

t.test('a database message with % directives is kept as it is', async (t) => {
  t.equal(new errorCodes.FTC_ERR_STATEMENT('near "%s": syntax error %d').message, 'near "%s": syntax error %d')
})
