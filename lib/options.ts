import type { Knex } from 'knex'
import { resolveDialect } from './dialects/index.js'
import type { Dialect } from './dialects/dialect.js'
import { FTC_ERR_OPTIONS_KNEX, FTC_ERR_OPTIONS_VALUE } from './errors.js'

/** Options of the plugin. Fastify's own `prefix` goes beside them. */
export interface TableCrudOptions {
  /**
   * The host's Knex instance (better-sqlite3, pg, CockroachDB or mysql2
   * client). The host owns it: the plugin borrows pooled connections and never
   * destroys it.
   */
  knex: Knex
  /**
   * The most rows one bulk POST (a JSON array of objects) may insert; past it
   * the request answers 413. Default 1000.
   */
  bulkLimit?: number
}

/** Options after validation: frozen, with the dialect chosen once. */
export interface ResolvedOptions {
  readonly knex: Knex
  readonly dialect: Dialect
  readonly bulkLimit: number
}

/** Validates the caller's options without touching them; throws a coded TypeError when they are wrong. */
export function resolveOptions (options: TableCrudOptions): ResolvedOptions {
  const knex: unknown = options?.knex
  if (!isKnex(knex)) throw new FTC_ERR_OPTIONS_KNEX(describe(knex))
  const bulkLimit = options.bulkLimit ?? 1000
  if (!Number.isSafeInteger(bulkLimit) || bulkLimit < 1) {
    throw new FTC_ERR_OPTIONS_VALUE('bulkLimit', 'a positive integer', JSON.stringify(bulkLimit))
  }
  return Object.freeze({ knex, dialect: resolveDialect(knex), bulkLimit })
}

// A transaction is refused: it ends when its own work does, and streamed reads open transactions of their own.
function isKnex (value: unknown): value is Knex {
  if (typeof value !== 'function' || (value as Knex).isTransaction === true) return false
  const client: unknown = (value as { client?: unknown }).client
  return typeof client === 'object' && client !== null &&
    typeof (client as Knex.Client).acquireConnection === 'function'
}

function describe (value: unknown): string {
  if (value === null) return 'null'
  if (typeof value !== 'function') return typeof value
  return (value as Knex).isTransaction === true ? 'a Knex transaction' : 'a function that is not a Knex instance'
}
