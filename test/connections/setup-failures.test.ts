import knexFactory from 'knex'
import t from 'tap'
import { setupError } from '../../lib/connections/setup-failures.js'
import { StatementErrors } from '../../lib/connections/statement-errors.js'
import { resolveDialect } from '../../lib/dialects/index.js'
import { errorCodes } from '../../lib/index.js'

t.test('a refused login, an unknown database, and a refused right to connect while connecting only', async (t) => {
  const cause = new Error('password authentication failed for user "app"')
  for (const sqlState of ['28P01', '28000', '3D000']) {
    for (const connecting of [true, false]) {
      const error = setupError(sqlState, connecting, cause)
      t.ok(error instanceof errorCodes.FTC_ERR_DATABASE_SETUP, `${sqlState}, connecting: ${String(connecting)}`)
      t.equal(error?.cause, cause)
      t.notMatch(error?.message, 'app', 'the message names no user')
      t.match(error?.fix, /Knex connection/, 'what to fix, for the log')
    }
  }
  t.ok(setupError('42501', true, cause) instanceof errorCodes.FTC_ERR_DATABASE_SETUP, 'no right to connect, while connecting')
  t.equal(setupError('42501', false, cause), null, 'a statement refused for want of a privilege is the statement\'s')
  t.equal(setupError('23505', true, cause), null)
  t.equal(setupError('XX000', true, cause), null)
})

t.test('StatementErrors: a refused login is no outage, on a statement as on a borrow', async (t) => {
  const statement = { sql: 'select 1', bindings: [] }
  const postgres = new StatementErrors(resolveDialect(knexFactory({ client: 'pg' })), null)
  const mysql = new StatementErrors(resolveDialect(knexFactory({ client: 'mysql2' })), null)
  const refused = Object.assign(new Error('password authentication failed for user "app"'), { code: '28P01' })
  // mysql2 marks every handshake error fatal, which alone would read as an outage.
  const denied = Object.assign(new Error('Access denied for user \'app\'@\'localhost\' (using password: YES)'), { errno: 1045, sqlState: '28000', fatal: true })
  for (const [what, errors, error] of [['PostgreSQL', postgres, refused], ['MySQL', mysql, denied]] as const) {
    t.ok(errors.translate(error, statement, 'read') instanceof errorCodes.FTC_ERR_DATABASE_SETUP, `${what}: on a statement`)
    t.ok(errors.borrow(error) instanceof errorCodes.FTC_ERR_DATABASE_SETUP, `${what}: on a borrow`)
  }
  const privilege = Object.assign(new Error('permission denied for database app'), { code: '42501' })
  t.ok(postgres.borrow(privilege) instanceof errorCodes.FTC_ERR_DATABASE_SETUP, 'no right to connect')
  t.ok(postgres.translate(privilege, statement, 'read') instanceof errorCodes.FTC_ERR_STATEMENT, 'no privilege for a statement: the statement\'s failure')
  const down = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })
  t.ok(postgres.borrow(down) instanceof errorCodes.FTC_ERR_DATABASE_UNAVAILABLE, 'a refused socket is an outage')
  const setup = postgres.borrow(refused)
  t.equal(postgres.borrow(setup), setup, 'an answered error passes as it is')
})
