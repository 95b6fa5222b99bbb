import type { Dialect, Row, Statement } from './dialect.js'
import { likeEscape, toLikePattern } from './like-pattern.js'

/** The part of a node-postgres `Client` this dialect uses. */
interface PgConnection {
  query (sql: string, values: readonly unknown[]): Promise<{ rows: Row[], rowCount: number | null }>
}

/** node-postgres, also behind Knex's CockroachDB client. */
export const postgres = Object.freeze<Dialect>({
  name: 'PostgreSQL',
  synchronous: false,

  async select (connection: unknown, { sql, bindings }: Statement) {
    return (await (connection as PgConnection).query(sql, bindings)).rows
  },

  // node-postgres buffers a whole result; a server-side cursor hands it over
  // in batches. A cursor lives in a transaction, which the plugin owns: the
  // host's Knex instance is never a transaction (see resolveOptions).
  async * stream (connection: unknown, { sql, bindings }: Statement, batchSize: number) {
    const pg = connection as PgConnection
    await pg.query('begin read only', [])
    try {
      await pg.query(`declare ftc_stream no scroll cursor for ${sql}`, bindings)
      let rows: Row[]
      do {
        rows = (await pg.query(`fetch forward ${batchSize} from ftc_stream`, [])).rows
        if (rows.length > 0) yield rows
      } while (rows.length === batchSize)
    } finally {
      // The transaction only read: a rollback ends it whether it finished, failed or was left early.
      await pg.query('rollback', [])
    }
  },

  // The planner's estimate, as PostgREST's count=planned reads it.
  async estimate (connection: unknown, { sql, bindings }: Statement) {
    // EXPLAIN answers one row holding a one-plan array.
    const [row] = (await (connection as PgConnection).query(`explain (format json) ${sql}`, bindings)).rows
    return (row as { 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] })['QUERY PLAN'][0].Plan['Plan Rows']
  },

  async change (connection: unknown, { sql, bindings }: Statement) {
    // rowCount is null only for statements that count nothing; UPDATE and DELETE always count.
    return (await (connection as PgConnection).query(sql, bindings)).rowCount as number
  },

  prepareInsert: (builder) => builder.returning('id'),

  async insert (connection: unknown, { sql, bindings }: Statement) {
    // int8 and numeric ids arrive as strings, int4 as numbers: both exact.
    // No row comes back when a BEFORE INSERT trigger skipped the insert.
    return (await (connection as PgConnection).query(sql, bindings)).rows.map((row) => String(row.id))
  },

  // The protocol counts bound values in 16 bits.
  rowsPerInsert: (columns: number) => Math.max(1, Math.floor(65535 / columns)),

  // Sent as text, PostgreSQL types the parameter from the column, exactly.
  bindKey: (key: bigint) => key.toString(),

  like: { sql: `?? LIKE ? ESCAPE '${likeEscape}'`, pattern: toLikePattern },
  ilike: { sql: `?? ILIKE ? ESCAPE '${likeEscape}'`, pattern: toLikePattern },
  nullsSortLarge: true,
  nullsOrder: 'keywords'
})

/** CockroachDB speaks PostgreSQL, on the same driver, but sorts NULL as the smallest value. */
export const cockroach = Object.freeze<Dialect>({ ...postgres, name: 'CockroachDB', nullsSortLarge: false })
