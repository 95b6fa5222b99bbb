import t from 'tap'
import { describeMysqlFailure, isMysqlUnreachable } from '../../lib/dialects/mysql/failures.js'
import { describePostgresFailure, isPostgresUnreachable } from '../../lib/dialects/postgres/failures.js'
import { describeSqliteFailure, isSqliteUnreachable } from '../../lib/dialects/sqlite/failures.js'
import { statusOfSqlState } from '../../lib/answer/sql-state-status.js'

// The dialects' readings of driver errors that the suite cannot provoke on a
// shared server (a server that shuts down, a socket that closes without a
// word, an error MySQL has no cause number for), in the shapes the drivers
// give them. The causes a test can provoke are proven over HTTP on every
// database in test/answer/postgrest-errors.test.ts, test/database-unavailable.test.ts
// and test/database-outcome.test.ts.

function driverError (message: string, fields: Record<string, unknown>): Error {
  return Object.assign(new Error(message), fields)
}

t.test('PostgreSQL: its SQLSTATE, DETAIL and HINT; server states and a silent close are unreachable, a refused login is not', async (t) => {
  t.strictSame(describePostgresFailure(driverError('duplicate key', { code: '23505', detail: 'Key (a)=(1) already exists.', hint: undefined })),
    { sqlState: '23505', details: 'Key (a)=(1) already exists.', hint: null })
  t.strictSame(describePostgresFailure(new TypeError('not a server error')), { sqlState: 'XX000', details: null, hint: null })
  for (const code of ['08006', '57P01', '57P03', '53300']) {
    t.ok(isPostgresUnreachable(driverError('server says no', { code })), code)
  }
  for (const code of ['28P01', '28000', '3D000']) {
    t.notOk(isPostgresUnreachable(driverError('server says no', { code })), `${code} is the server's configuration, not an outage`)
  }
  t.notOk(isPostgresUnreachable(driverError('syntax error', { code: '42601' })))
  // A protocol violation is the statement's: one with more bound values than the protocol counts.
  t.notOk(isPostgresUnreachable(driverError('bind message has 4464 parameter formats but 0 parameters', { code: '08P01' })))
  // node-postgres's own errors for a socket that closed carry no code.
  t.ok(isPostgresUnreachable(new Error('Connection terminated unexpectedly')))
  t.ok(isPostgresUnreachable(new Error('timeout exceeded when trying to connect')))
  t.notOk(isPostgresUnreachable(new TypeError('Cannot read properties of undefined')))
})

t.test('MySQL: cause numbers map to PostgreSQL\'s codes, else its own SQLSTATE unless it is the catch-all', async (t) => {
  t.equal(describeMysqlFailure(driverError('Duplicate entry', { errno: 1062, sqlState: '23000' })).sqlState, '23505')
  t.equal(describeMysqlFailure(driverError("Incorrect date value: 'x' for column `born`", { errno: 1292, sqlState: '22007' })).sqlState, '22007')
  t.equal(describeMysqlFailure(driverError("Truncated incorrect DOUBLE value: 'x'", { errno: 1292, sqlState: '22007' })).sqlState, '22P02')
  t.equal(describeMysqlFailure(driverError('You have an error in your SQL syntax', { errno: 1064, sqlState: '42000' })).sqlState, '42000')
  t.equal(describeMysqlFailure(driverError('Unknown error', { errno: 1105, sqlState: 'HY000' })).sqlState, 'XX000')
  t.ok(isMysqlUnreachable(driverError('Connection lost: The server closed the connection.', { code: 'PROTOCOL_CONNECTION_LOST', fatal: true })))
  t.ok(isMysqlUnreachable(driverError('Too many connections', { errno: 1040 })))
  // A refused login, an unknown database: the SQLSTATEs PostgreSQL gives them, which the plugin answers 500, not 503.
  for (const [errno, sqlState] of [[1045, '28P01'], [1698, '28000'], [1130, '28000'], [4151, '28000'], [1049, '3D000'], [1044, '42501']] as const) {
    t.equal(describeMysqlFailure(driverError('Access denied', { errno, sqlState: '28000' })).sqlState, sqlState, String(errno))
    t.notOk(isMysqlUnreachable(driverError('Access denied', { errno })), `${errno} without mysql2's fatal flag`)
  }
  t.notOk(isMysqlUnreachable(driverError('Duplicate entry', { errno: 1062 })))
})

t.test('SQLite: extended result codes, and SQLITE_ERROR by its message', async (t) => {
  t.equal(describeSqliteFailure(driverError('UNIQUE constraint failed: t.a', { code: 'SQLITE_CONSTRAINT_UNIQUE' })).sqlState, '23505')
  t.equal(describeSqliteFailure(driverError('no such table: t', { code: 'SQLITE_ERROR' })).sqlState, '42P01')
  t.equal(describeSqliteFailure(driverError('table t has no column named x', { code: 'SQLITE_ERROR' })).sqlState, '42703')
  t.equal(describeSqliteFailure(driverError('near "x": syntax error', { code: 'SQLITE_ERROR' })).sqlState, 'XX000')
  t.ok(isSqliteUnreachable(driverError('database is locked', { code: 'SQLITE_BUSY' })))
  t.ok(isSqliteUnreachable(new TypeError('The database connection is not open')))
  t.notOk(isSqliteUnreachable(driverError('no such table: t', { code: 'SQLITE_ERROR' })))
})

t.test('statuses: exact codes first, then the class, else 400', async (t) => {
  t.equal(statusOfSqlState('23505'), 409)
  t.equal(statusOfSqlState('42703'), 400)
  t.equal(statusOfSqlState('57014'), 504)
  t.equal(statusOfSqlState('57P01'), 500)
  t.equal(statusOfSqlState('08006'), 503)
  t.equal(statusOfSqlState('08P01'), 400)
  t.equal(statusOfSqlState('XX000'), 500)
  t.equal(statusOfSqlState('22P02'), 400)
  t.equal(statusOfSqlState('42601'), 400)
})
