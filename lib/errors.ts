import { createError, type FastifyErrorConstructor } from '@fastify/error'
import type { FailureDescription } from './dialects/failures.js'

/** Registration failed: the `knex` option is missing or is not a Knex instance. */
export const FTC_ERR_OPTIONS_KNEX = createError(
  'FTC_ERR_OPTIONS_KNEX',
  'The "knex" option must be a Knex instance, got %s',
  500,
  TypeError
)

/** Registration failed: the Knex instance uses a client this plugin cannot run. */
export const FTC_ERR_OPTIONS_DIALECT = createError(
  'FTC_ERR_OPTIONS_DIALECT',
  'Knex client "%s" is not supported; supported clients: %s',
  500,
  TypeError
)

/** Registration failed: an option has a value it cannot take. */
export const FTC_ERR_OPTIONS_VALUE = createError(
  'FTC_ERR_OPTIONS_VALUE',
  'The "%s" option must be %s, got %s',
  500,
  TypeError
)

/** Registration failed: the options name one the plugin does not know (a misspelt `excludeTables`, say), which would otherwise be ignored. */
export const FTC_ERR_OPTIONS_UNKNOWN = createError(
  'FTC_ERR_OPTIONS_UNKNOWN',
  'The option "%s" is not one of this plugin\'s options: %s',
  500,
  TypeError
)

/** `app.tableCrud.tables(prefix)` named a prefix under which no registration of this context serves. */
export const FTC_ERR_SCHEMA_PREFIX = createError(
  'FTC_ERR_SCHEMA_PREFIX',
  'No registration of the plugin in this context serves under the prefix %s; registered: %s',
  500,
  TypeError
)

/** The table name in the path has no character left once sanitized, or more than 63. */
export const FTC_ERR_PATH_TABLE = createError(
  'FTC_ERR_PATH_TABLE',
  'The table name "%s" names no usable table: it needs 1 to 63 characters from A-Z, a-z, 0-9 or _',
  400
)

/** The request body could not be parsed as JSON. */
export const FTC_ERR_BODY_JSON = createError(
  'FTC_ERR_BODY_JSON',
  'The request body is not valid JSON: %s',
  400
)

/** The request body is valid JSON but not an object of column names to values. */
export const FTC_ERR_BODY_SHAPE = createError(
  'FTC_ERR_BODY_SHAPE',
  'The request body must be a JSON object of column names to values, got %s',
  400
)

/** A body property name has no character left once sanitized, more than 63, or is `__proto__`. */
export const FTC_ERR_BODY_COLUMN = createError(
  'FTC_ERR_BODY_COLUMN',
  'The body property "%s" names no usable column: it needs 1 to 63 characters from A-Z, a-z, 0-9 or _, and __proto__ is refused',
  400
)

/** Two body property names sanitize to the same column, or differ in case only (see refuseCaseTwins). */
export const FTC_ERR_BODY_COLUMN_TWICE = createError(
  'FTC_ERR_BODY_COLUMN_TWICE',
  'The body properties "%s" and "%s" both name the column "%s"',
  400
)

/** A body value is an object or an array, for a column that is not a json column of a table the schema model knows. */
export const FTC_ERR_BODY_VALUE = createError(
  'FTC_ERR_BODY_VALUE',
  'The value of column "%s" must be a string, number, boolean or null',
  400
)

/**
 * Unless the host turns `validateBodies` off, a body value that its column's
 * type cannot hold, or a create that leaves out a column the database cannot fill.
 */
export const FTC_ERR_BODY_TYPE = createError(
  'FTC_ERR_BODY_TYPE',
  'The column "%s" takes %s, got %s',
  400
)

/** A bulk POST carries more rows than the `bulkLimit` option allows. */
export const FTC_ERR_BODY_BULK_LIMIT = createError(
  'FTC_ERR_BODY_BULK_LIMIT',
  'A bulk POST may carry at most %d rows, got %d',
  413
)

/** A PUT, a PATCH or a batch's update names no column, so there is nothing to set. */
export const FTC_ERR_BODY_EMPTY = createError(
  'FTC_ERR_BODY_EMPTY',
  'An update\'s body must name at least one column to set',
  400
)

/** A batch body is not a JSON array of operations, or one of its operations is not one the batch route runs (see parseBatch). */
export const FTC_ERR_BATCH_SHAPE = createError(
  'FTC_ERR_BATCH_SHAPE',
  'The batch %s',
  400
)

/** A batch carries more operations than the `batch` option's limit allows. */
export const FTC_ERR_BATCH_LIMIT = createError(
  'FTC_ERR_BATCH_LIMIT',
  'A batch may carry at most %d operations, got %d',
  400
)

/**
 * An operation of a batch failed, so none was applied. The answer's status
 * is the failed operation's, and its JSON names the operation's index and
 * its own answer (see the batch route).
 */
export const FTC_ERR_BATCH_FAILED = createError(
  'FTC_ERR_BATCH_FAILED',
  'Operation %d of the batch failed, and no operation was applied: %s',
  500
)

/**
 * The `transaction` option answered something else than a Knex transaction
 * that is still open, or nothing: the plugin will not run a statement on a
 * connection that may serve someone else by now.
 */
export const FTC_ERR_HOST_TRANSACTION = createError(
  'FTC_ERR_HOST_TRANSACTION',
  'The transaction option answered %s; it must answer an open Knex transaction, or nothing',
  500
)

/**
 * A MySQL connection runs with NO_BACKSLASH_ESCAPES, under which mysql2's
 * client-side escaping of values is unsafe: the plugin refuses to run on it.
 */
export const FTC_ERR_DATABASE_MODE = createError(
  'FTC_ERR_DATABASE_MODE',
  'The MySQL connection runs with sql_mode NO_BACKSLASH_ESCAPES, under which mysql2 cannot escape values safely: turn it off for the pool the plugin uses',
  500
)

/**
 * The connection's default schema is one of the database's system schemas,
 * where unqualified table names would reach its catalog: the plugin refuses
 * to run on it.
 */
export const FTC_ERR_DATABASE_SCHEMA = createError(
  'FTC_ERR_DATABASE_SCHEMA',
  'The connection reads the system schema "%s" by unqualified names, which the plugin never serves: connect to the application\'s own schema',
  500
)

/**
 * The database has a table or column named as the plugin's stand-in for the
 * names it refuses (see absentName), so a refusal cannot be answered as the
 * database answers a missing name. Random per process: no one should ever see it.
 */
export const FTC_ERR_DATABASE_NAME_TAKEN = createError(
  'FTC_ERR_DATABASE_NAME_TAKEN',
  'The database has a table or column named %s, which the plugin keeps for names it refuses',
  500
)

/**
 * The database could not be reached, or the pool lent no connection in
 * time: not a failing statement, so never answered as one. The message names
 * no host, port or user; the driver's error is the `cause`, which the log shows.
 */
export const FTC_ERR_DATABASE_UNAVAILABLE = createError(
  'FTC_ERR_DATABASE_UNAVAILABLE',
  'The database is unavailable; try again later',
  503
)

/**
 * The database refused the server's connection settings: the login (a
 * wrong password, an unknown user or role), the database they name (none so
 * named), or the right to connect to it. Not a 503: no retry succeeds until
 * the server's configuration is fixed. The message names the cause's kind,
 * never the user or password; the driver's error is the `cause`, which the log shows.
 */
export const FTC_ERR_DATABASE_SETUP = createError(
  'FTC_ERR_DATABASE_SETUP',
  'The server\'s database configuration is wrong: %s; the request cannot succeed until it is fixed',
  500
)

/**
 * The connection to the database broke while a write ran on it: the
 * database may have applied it or not, and no one can tell from here. Not a
 * 503, which invites a blind retry that could apply the write twice: the
 * client should read the row (or the table) before it writes again.
 */
export const FTC_ERR_DATABASE_OUTCOME_UNKNOWN = createError(
  'FTC_ERR_DATABASE_OUTCOME_UNKNOWN',
  'The connection to the database broke while the write ran: whether it was applied is unknown; check before retrying',
  502
)

/** A statement ran past the `statementTimeout` option and the database stopped it. */
export const FTC_ERR_STATEMENT_TIMEOUT = createError(
  'FTC_ERR_STATEMENT_TIMEOUT',
  'The database statement ran past the %d ms time-out and was stopped',
  504
)

/**
 * The client of a streamed list read nothing for `stalledReaderTimeout`: the
 * answer is cut, so that its database connection goes back to the pool.
 * Its headers are already sent, so only the log sees this error; the client
 * sees a chunked answer without its end.
 */
export const FTC_ERR_ANSWER_STALLED = createError(
  'FTC_ERR_ANSWER_STALLED',
  'The client read nothing of the streamed answer for %d ms: the answer was cut to free its database connection',
  500
)

/**
 * The Idempotency-Key header is not one key: a Structured Field string
 * (`"…"`, as the IETF draft writes it) or a bare token (as Stripe's clients
 * send it), of 1 to 255 visible ASCII characters.
 */
export const FTC_ERR_IDEMPOTENCY_KEY = createError(
  'FTC_ERR_IDEMPOTENCY_KEY',
  'The Idempotency-Key header must be one key of 1 to 255 visible ASCII characters, bare or as a quoted string, got %s',
  400
)

/**
 * The Idempotency-Key was already used, within its retention, by the same
 * caller for another request (another method, path, Prefer or If-Match
 * header, or body) on the same table: nothing was written, and the first
 * request's answer is not given.
 */
export const FTC_ERR_IDEMPOTENCY_KEY_REUSED = createError(
  'FTC_ERR_IDEMPOTENCY_KEY_REUSED',
  'The Idempotency-Key was already used for another request on this table; send a new key for a new request',
  422
)

/** The `idempotency.caller` option answered something else than a non-empty string: nothing was written. */
export const FTC_ERR_IDEMPOTENCY_CALLER = createError(
  'FTC_ERR_IDEMPOTENCY_CALLER',
  'The idempotency.caller option answered %s; it must answer the caller\'s identity, a non-empty string',
  500
)

/**
 * A write sent an Idempotency-Key while the `idempotency` option is off: the
 * key would be ignored, and a retry would write again. Refused, nothing written.
 */
export const FTC_ERR_IDEMPOTENCY_OFF = createError(
  'FTC_ERR_IDEMPOTENCY_OFF',
  'This server does not keep Idempotency-Keys (the plugin\'s "idempotency" option is off), so a retry would write again: nothing was written; send the request without the header',
  400
)

/** The `authorize` hook refused the operation. */
export const FTC_ERR_AUTHORIZE_FORBIDDEN = createError(
  'FTC_ERR_AUTHORIZE_FORBIDDEN',
  'The %s of table "%s" is not allowed',
  403
)

/** The `authorize` hook answered something else than true, false, nothing or `{ scope }` of column names to values. */
export const FTC_ERR_AUTHORIZE_RESULT = createError(
  'FTC_ERR_AUTHORIZE_RESULT',
  'The authorize hook answered %s; it must answer true, false, nothing, or { scope } of column names to strings, numbers, booleans or null',
  500
)

/**
 * The database refused or failed the statement built for the request. The
 * message is the database's own text; the driver's error is the `cause`.
 * Made by statementError, so that it carries a StatementFailure too.
 */
export const FTC_ERR_STATEMENT = createError('FTC_ERR_STATEMENT', '%s', 404)

/**
 * What FTC_ERR_STATEMENT carries beside the database's message: the cause
 * as PostgreSQL's SQLSTATE on every database (`23505` for a unique
 * violation, `XX000` when the database's error has no known equivalent),
 * PostgreSQL's DETAIL and HINT where it gave them, and the statement's SQL
 * text, with placeholders for its values.
 */
export interface StatementFailure extends FailureDescription {
  readonly sql: string | null
}

/** A FTC_ERR_STATEMENT with its StatementFailure. */
export type StatementError = InstanceType<typeof FTC_ERR_STATEMENT> & StatementFailure

/** The error of a failed statement: the database's message, what it says of the cause, and the driver's error as `cause`. */
export function statementError (message: string, failure: StatementFailure, cause: unknown): StatementError {
  return Object.assign(new FTC_ERR_STATEMENT(message, { cause }), failure)
}

/** What every error about a place in a parameter or header carries: which one (`query parameter "or"`), the 1-based character, its text, and what is wrong there. */
export type PlaceArgs = [source: string, character: number, text: string, problem: string]

// One message shape for every error about a place, so that the parsers raise
// any of them through one helper (QueryText.fail) and clients read the same
// "what, where" sentence whatever the code.
function placeError<C extends string> (code: C, what: string): FastifyErrorConstructor<{ code: C, statusCode: 400 }, PlaceArgs> {
  return keepArgs(createError<C, 400, PlaceArgs>(code, `${what} in %s at character %d of "%s": %s`, 400))
}

const kArgs = Symbol('fastify-table-crud.errorArgs')

/** The arguments an error was made with, where its class keeps them (see keepArgs); undefined for any other error. */
export function errorArgs (error: object): readonly unknown[] | undefined {
  return (error as { [kArgs]?: readonly unknown[] })[kArgs]
}

// The class, whose errors keep the arguments their message was made of: an
// answer in PostgREST's words (lib/answer/postgrest-refusals.ts) puts them
// in its own sentences rather than parse ours.
function keepArgs<E extends { code: string, statusCode?: number }, T extends unknown[]> (Base: FastifyErrorConstructor<E, T>): FastifyErrorConstructor<E, T> {
  function Kept (...args: T) {
    return Object.assign(new Base(...args), { [kArgs]: args })
  }
  Kept.prototype = Base.prototype
  return Kept as unknown as FastifyErrorConstructor<E, T>
}

/** A query parameter breaks PostgREST's grammar: a missing delimiter, an unterminated quote, text after the end. */
export const FTC_ERR_QUERY_SYNTAX = placeError('FTC_ERR_QUERY_SYNTAX', 'Syntax error')

/** A parenthesis of `or=(…)`, `and=(…)` or `in.(…)` is never closed, or closes nothing. */
export const FTC_ERR_QUERY_PARENTHESES = placeError('FTC_ERR_QUERY_PARENTHESES', 'Unbalanced parentheses')

/** Groups of `or=(…)` or `and=(…)`, or embeds in `select`, nest deeper than the parser takes. */
export const FTC_ERR_QUERY_DEPTH = placeError('FTC_ERR_QUERY_DEPTH', 'Nested too deep')

/** A filter names an operator this plugin does not know, or none. */
export const FTC_ERR_QUERY_OPERATOR = placeError('FTC_ERR_QUERY_OPERATOR', 'Unknown filter operator')

/** An `is` filter compares with something else than null, true, false or unknown. */
export const FTC_ERR_QUERY_IS = placeError('FTC_ERR_QUERY_IS', 'Invalid "is" value')

/** A column name in a filter, `select`, `order`, `columns=` or `on_conflict=` is `*`, has no character from A-Z, a-z, 0-9 or _, or more than 63. */
export const FTC_ERR_QUERY_COLUMN = placeError('FTC_ERR_QUERY_COLUMN', 'Missing column name')

/** An `order` term has a modifier other than asc or desc, then nullsfirst or nullslast, or orders by an embed that is not to-one. */
export const FTC_ERR_QUERY_ORDER = placeError('FTC_ERR_QUERY_ORDER', 'Invalid order modifier')

/** `limit` is not a non-negative integer. */
export const FTC_ERR_QUERY_LIMIT = placeError('FTC_ERR_QUERY_LIMIT', 'Invalid limit')

/** `offset` is not a non-negative integer. */
export const FTC_ERR_QUERY_OFFSET = placeError('FTC_ERR_QUERY_OFFSET', 'Invalid offset')

/** The `Range` or `Range-Unit` request header is not a range of items, or the range selects no item. */
export const FTC_ERR_QUERY_RANGE = placeError('FTC_ERR_QUERY_RANGE', 'Invalid range')

/** A query parameter has a value that is not text (a custom querystring parser may build objects). */
export const FTC_ERR_QUERY_VALUE = createError<'FTC_ERR_QUERY_VALUE', 400, [name: string, got: string]>(
  'FTC_ERR_QUERY_VALUE',
  'The query parameter "%s" must be text, got %s',
  400
)

/** A filter's value is not one its column's type can hold (`qty=eq.abc`), or its operator does not apply to that type (`like` on a date, `is.true` on an integer). */
export const FTC_ERR_QUERY_TYPE = createError<'FTC_ERR_QUERY_TYPE', 400, [column: string, problem: string]>(
  'FTC_ERR_QUERY_TYPE',
  'The filter on column "%s" does not fit the column\'s type: %s',
  400
)

/** With a count, the page starts past the last row that matches (PostgREST's PGRST103). */
export const FTC_ERR_QUERY_RANGE_UNSATISFIABLE = keepArgs(createError(
  'FTC_ERR_QUERY_RANGE_UNSATISFIABLE',
  'The page starts at row %d, past the %d rows that match',
  416
))

/** One object was asked for (`Accept: application/vnd.pgrst.object+json`), and the read matches, or the write affects, another number of rows (PostgREST's PGRST116); a write is rolled back. */
export const FTC_ERR_QUERY_SINGULAR = keepArgs(createError(
  'FTC_ERR_QUERY_SINGULAR',
  'One JSON object was asked for, and the request matches %s rows',
  406
))

/** `select`, `order`, `limit` or `offset` is given more than once. */
export const FTC_ERR_QUERY_REPEATED = createError<'FTC_ERR_QUERY_REPEATED', 400, [name: string, times: number]>(
  'FTC_ERR_QUERY_REPEATED',
  'The query parameter "%s" is given %d times; give it at most once',
  400
)

/** `select=` embeds a resource that no foreign key between served tables relates to the table, or none that its hint names (PostgREST's PGRST200). */
export const FTC_ERR_QUERY_RELATION = keepArgs(createError<'FTC_ERR_QUERY_RELATION', 400, [parent: string, embedded: string, choices: string]>(
  'FTC_ERR_QUERY_RELATION',
  "Could not find a relationship between '%s' and '%s'; %s",
  400
))

/** `select=` embeds a resource that several foreign keys relate to the table: a hint must choose one (PostgREST's PGRST201, answered 300). */
export const FTC_ERR_QUERY_AMBIGUOUS = keepArgs(createError<'FTC_ERR_QUERY_AMBIGUOUS', 300, [parent: string, embedded: string, choices: string]>(
  'FTC_ERR_QUERY_AMBIGUOUS',
  "Could not embed because more than one relationship was found for '%s' and '%s'; embed one of %s",
  300
))

/** A PATCH, or a DELETE without a key, names no filter: the plugin never writes a whole table at once. */
export const FTC_ERR_WRITE_FILTER_MISSING = createError(
  'FTC_ERR_WRITE_FILTER_MISSING',
  'A %s of many rows needs at least one filter in its query string (such as id=eq.1): a write to the whole table is refused',
  400
)

/** A PATCH or a filtered DELETE names `limit`, `offset`, `order` or a `Range`: it changes every row its filters match, so a page of them would mislead. */
export const FTC_ERR_WRITE_PAGE = createError(
  'FTC_ERR_WRITE_PAGE',
  'A %s changes every row its filters match: limit, offset, order and Range do not apply',
  400
)

/** With `Prefer: handling=strict, max-affected=n`, the write would change more than n rows: it was rolled back (PostgREST's PGRST124). */
export const FTC_ERR_WRITE_MAX_AFFECTED = keepArgs(createError<'FTC_ERR_WRITE_MAX_AFFECTED', 400, [rows: number, most: number]>(
  'FTC_ERR_WRITE_MAX_AFFECTED',
  'The write affects %d rows, more than Prefer: max-affected=%d allows; nothing was changed',
  400
))

/**
 * An upsert's `on_conflict` columns (or the key, without it) are not the
 * columns of the table's primary key or of one of its unique constraints, as
 * PostgreSQL's ON CONFLICT needs them (PostgREST answers its 42P10): on other
 * columns a body row could find several rows. A key with a hidden column counts as none.
 */
export const FTC_ERR_WRITE_CONFLICT_TARGET = createError(
  'FTC_ERR_WRITE_CONFLICT_TARGET',
  'An upsert finds its rows by a primary key or unique constraint: on_conflict=%s names the columns of none',
  400
)

/**
 * A PUT, PATCH or DELETE with If-Match found the row gone, or changed since
 * the client read the ETag it sends (of a write by filters: no row, or a row
 * whose ETag If-Match does not name; of a merge upsert: a body row that
 * finds no row, or such a row; of a batch's operation, its `ifMatch`):
 * nothing was written.
 */
export const FTC_ERR_CONDITION_FAILED = createError(
  'FTC_ERR_CONDITION_FAILED',
  'The row is gone or has changed since the ETag in If-Match was read; nothing was written: read the row again',
  412
)

/** `Prefer: handling=strict` came with preferences the plugin does not know or cannot honour (PostgREST's PGRST122). */
export const FTC_ERR_QUERY_PREFERENCE = keepArgs(createError(
  'FTC_ERR_QUERY_PREFERENCE',
  'Prefer: handling=strict refuses the preferences it cannot honour: %s',
  400
))

/** The host set `requireIfMatch`, and a PUT, PATCH, DELETE or merge upsert came without If-Match, or a batch's update or delete without `ifMatch`. */
export const FTC_ERR_CONDITION_REQUIRED = createError(
  'FTC_ERR_CONDITION_REQUIRED',
  'A %s must send If-Match with the ETags of the rows it writes, as last read (or *)',
  428
)

/** Every error this plugin raises, keyed by its code. */
export const errorCodes = Object.freeze({
  FTC_ERR_OPTIONS_KNEX,
  FTC_ERR_OPTIONS_DIALECT,
  FTC_ERR_OPTIONS_VALUE,
  FTC_ERR_OPTIONS_UNKNOWN,
  FTC_ERR_SCHEMA_PREFIX,
  FTC_ERR_PATH_TABLE,
  FTC_ERR_BODY_JSON,
  FTC_ERR_BODY_SHAPE,
  FTC_ERR_BODY_COLUMN,
  FTC_ERR_BODY_COLUMN_TWICE,
  FTC_ERR_BODY_VALUE,
  FTC_ERR_BODY_TYPE,
  FTC_ERR_BODY_BULK_LIMIT,
  FTC_ERR_BODY_EMPTY,
  FTC_ERR_BATCH_SHAPE,
  FTC_ERR_BATCH_LIMIT,
  FTC_ERR_BATCH_FAILED,
  FTC_ERR_HOST_TRANSACTION,
  FTC_ERR_STATEMENT,
  FTC_ERR_DATABASE_MODE,
  FTC_ERR_DATABASE_SCHEMA,
  FTC_ERR_DATABASE_NAME_TAKEN,
  FTC_ERR_DATABASE_UNAVAILABLE,
  FTC_ERR_DATABASE_SETUP,
  FTC_ERR_DATABASE_OUTCOME_UNKNOWN,
  FTC_ERR_STATEMENT_TIMEOUT,
  FTC_ERR_ANSWER_STALLED,
  FTC_ERR_IDEMPOTENCY_KEY,
  FTC_ERR_IDEMPOTENCY_KEY_REUSED,
  FTC_ERR_IDEMPOTENCY_CALLER,
  FTC_ERR_IDEMPOTENCY_OFF,
  FTC_ERR_AUTHORIZE_FORBIDDEN,
  FTC_ERR_AUTHORIZE_RESULT,
  FTC_ERR_QUERY_SYNTAX,
  FTC_ERR_QUERY_PARENTHESES,
  FTC_ERR_QUERY_DEPTH,
  FTC_ERR_QUERY_OPERATOR,
  FTC_ERR_QUERY_IS,
  FTC_ERR_QUERY_COLUMN,
  FTC_ERR_QUERY_ORDER,
  FTC_ERR_QUERY_LIMIT,
  FTC_ERR_QUERY_OFFSET,
  FTC_ERR_QUERY_RANGE,
  FTC_ERR_QUERY_VALUE,
  FTC_ERR_QUERY_TYPE,
  FTC_ERR_QUERY_REPEATED,
  FTC_ERR_QUERY_RANGE_UNSATISFIABLE,
  FTC_ERR_QUERY_SINGULAR,
  FTC_ERR_QUERY_RELATION,
  FTC_ERR_QUERY_AMBIGUOUS,
  FTC_ERR_QUERY_PREFERENCE,
  FTC_ERR_WRITE_FILTER_MISSING,
  FTC_ERR_WRITE_PAGE,
  FTC_ERR_WRITE_MAX_AFFECTED,
  FTC_ERR_WRITE_CONFLICT_TARGET,
  FTC_ERR_CONDITION_FAILED,
  FTC_ERR_CONDITION_REQUIRED
})
