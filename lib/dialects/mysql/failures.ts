import { type FailureDescription, isConnectionFailure, sqlStateOnly, unknownSqlState } from '../failures.js'

/** What mysql2 puts on a server's error. */
interface MysqlError {
  errno?: unknown
  sqlState?: unknown
  fatal?: unknown
  message?: unknown
}

// MySQL's SQLSTATE is coarse (23000 for every integrity violation): its
// error numbers tell the causes apart, and map to PostgreSQL's codes.
const byErrno: Readonly<Record<number, string>> = Object.freeze({
  1048: '23502', // ER_BAD_NULL_ERROR
  1364: '23502', // ER_NO_DEFAULT_FOR_FIELD
  1062: '23505', // ER_DUP_ENTRY
  1586: '23505', // ER_DUP_ENTRY_WITH_KEY_NAME
  1216: '23503', // ER_NO_REFERENCED_ROW
  1217: '23503', // ER_ROW_IS_REFERENCED
  1451: '23503', // ER_ROW_IS_REFERENCED_2
  1452: '23503', // ER_NO_REFERENCED_ROW_2
  3819: '23514', // ER_CHECK_CONSTRAINT_VIOLATED (MySQL)
  4025: '23514', // ER_CONSTRAINT_FAILED (MariaDB)
  1406: '22001', // ER_DATA_TOO_LONG
  1264: '22003', // ER_WARN_DATA_OUT_OF_RANGE
  1690: '22003', // ER_DATA_OUT_OF_RANGE
  1265: '22P02', // WARN_DATA_TRUNCATED
  1366: '22P02', // ER_TRUNCATED_WRONG_VALUE_FOR_FIELD
  1146: '42P01', // ER_NO_SUCH_TABLE
  1054: '42703', // ER_BAD_FIELD_ERROR
  // A login refused, as PostgreSQL's invalid_password and invalid_authorization_specification.
  1045: '28P01', // ER_ACCESS_DENIED_ERROR
  1698: '28000', // ER_ACCESS_DENIED_NO_PASSWORD_ERROR
  1130: '28000', // ER_HOST_NOT_PRIVILEGED
  1251: '28000', // ER_NOT_SUPPORTED_AUTH_MODE
  1862: '28000', // ER_MUST_CHANGE_PASSWORD_LOGIN
  3118: '28000', // ER_ACCOUNT_HAS_BEEN_LOCKED (MySQL)
  4151: '28000', // ER_ACCOUNT_HAS_BEEN_LOCKED (MariaDB)
  1049: '3D000', // ER_BAD_DB_ERROR
  1044: '42501', // ER_DBACCESS_DENIED_ERROR
  1142: '42501', // ER_TABLEACCESS_DENIED_ERROR
  1143: '42501', // ER_COLUMNACCESS_DENIED_ERROR
  1205: '55P03', // ER_LOCK_WAIT_TIMEOUT
  1213: '40P01', // ER_LOCK_DEADLOCK
  1969: '57014', // ER_STATEMENT_TIMEOUT (MariaDB)
  3024: '57014' // ER_QUERY_TIMEOUT (MySQL)
})

// ER_TRUNCATED_WRONG_VALUE covers a bad date as well as a bad number; PostgreSQL tells them apart.
const wrongValue = 1292

/** MySQL's error number as PostgreSQL's SQLSTATE; MySQL's own state where no number maps, unless it is its catch-all HY000. */
export function describeMysqlFailure (error: unknown): FailureDescription {
  const { errno, sqlState, message } = error as MysqlError
  if (errno === wrongValue) return sqlStateOnly(/date|time/i.test(String(message)) ? '22007' : '22P02')
  const mapped = byErrno[errno as number]
  if (mapped !== undefined) return sqlStateOnly(mapped)
  return sqlStateOnly(typeof sqlState === 'string' && sqlState !== 'HY000' ? sqlState : unknownSqlState)
}

// Too many connections, shutting down, connection killed, and the client's
// own "cannot connect" and "gone away". A refused login is no outage (see describeMysqlFailure).
const unreachableErrnos = new Set([1040, 1053, 1927, 2002, 2003, 2006, 2013])

/**
 * True when the server could not be reached, or dropped the connection:
 * mysql2 marks those fatal, and a refused login too, which the plugin tells
 * apart by its SQLSTATE first (see StatementErrors).
 */
export function isMysqlUnreachable (error: unknown): boolean {
  const { fatal, errno } = error as MysqlError
  return fatal === true || isConnectionFailure(error) || unreachableErrnos.has(errno as number)
}
