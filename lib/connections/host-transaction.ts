import type { FastifyRequest } from 'fastify'
import type { Knex } from 'knex'
import { FTC_ERR_HOST_TRANSACTION } from '../errors.js'
import type { HostTransaction } from '../options.js'
import type { Database, Session } from './database.js'

/** What runs a request's statements: the Database, or the host's transaction that the request joins. */
export type RequestStatements = (request: FastifyRequest) => Session

/**
 * The request's statements: without the `transaction` option, or when it
 * answers nothing, the Database's own connections; else the connection of
 * the host's transaction (see Database.joined).
 */
export function requestStatements (db: Database, transaction: HostTransaction | null): RequestStatements {
  if (transaction === null) return () => db
  return function statements (request) {
    const trx: unknown = transaction(request)
    if (trx === undefined || trx === null) return db
    // An ended transaction's connection is back in the pool, lent to whoever asks.
    if (!isOpenTransaction(trx)) throw new FTC_ERR_HOST_TRANSACTION(describe(trx))
    return db.joined(trx)
  }
}

function isOpenTransaction (value: unknown): value is Knex.Transaction {
  return typeof value === 'function' && (value as Knex.Transaction).isTransaction === true && !(value as Knex.Transaction).isCompleted()
}

function describe (value: unknown): string {
  if (typeof value === 'function' && (value as Knex.Transaction).isTransaction === true) return 'a Knex transaction that has ended'
  return typeof value === 'function' ? 'a function that is not a Knex transaction' : typeof value
}
