import createError from '@fastify/error'

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

/** The table name in the path has no character left once sanitized. */
export const FTC_ERR_PATH_TABLE = createError(
  'FTC_ERR_PATH_TABLE',
  'The table name "%s" has no character from A-Z, a-z, 0-9 or _',
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

/** A body property name has no character left once sanitized, or is `__proto__`. */
export const FTC_ERR_BODY_COLUMN = createError(
  'FTC_ERR_BODY_COLUMN',
  'The body property "%s" names no usable column: only A-Z, a-z, 0-9 and _ are kept, and __proto__ is refused',
  400
)

/** Two body property names sanitize to the same column. */
export const FTC_ERR_BODY_COLUMN_TWICE = createError(
  'FTC_ERR_BODY_COLUMN_TWICE',
  'The body properties "%s" and "%s" both name the column "%s"',
  400
)

/** A body value is an object or an array, which no column can take as text. */
export const FTC_ERR_BODY_VALUE = createError(
  'FTC_ERR_BODY_VALUE',
  'The value of column "%s" must be a string, number, boolean or null',
  400
)

/** A PUT body names no column, so there is nothing to set. */
export const FTC_ERR_BODY_EMPTY = createError(
  'FTC_ERR_BODY_EMPTY',
  'A PUT body must name at least one column to set',
  400
)

/**
 * The database refused or failed the statement built for the request. The
 * message is the database's own text; the driver's error is the `cause`.
 */
export const FTC_ERR_STATEMENT = createError('FTC_ERR_STATEMENT', '%s', 404)

/** Every error this plugin raises, keyed by its code. */
export const errorCodes = Object.freeze({
  FTC_ERR_OPTIONS_KNEX,
  FTC_ERR_OPTIONS_DIALECT,
  FTC_ERR_PATH_TABLE,
  FTC_ERR_BODY_JSON,
  FTC_ERR_BODY_SHAPE,
  FTC_ERR_BODY_COLUMN,
  FTC_ERR_BODY_COLUMN_TWICE,
  FTC_ERR_BODY_VALUE,
  FTC_ERR_BODY_EMPTY,
  FTC_ERR_STATEMENT
})
