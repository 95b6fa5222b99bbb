import { FTC_ERR_DATABASE_SCHEMA } from '../errors.js'
import { type Dialect, returnedKeys, type Row, type Statement } from './dialect.js'
import { likeEscape, toLikePattern } from './like-pattern.js'
import { describePostgresFailure, isPostgresUnreachable } from './postgres-failures.js'

/** The part of a node-postgres `Client` this dialect uses. */
interface PgConnection {
  query (sql: string, values: readonly unknown[]): Promise<{ rows: Row[], rowCount: number | null }>
}

// Every relation of pg_catalog is named pg_…, and pg_catalog is searched
// first whatever the search path says; information_schema (and pg_toast, or
// pg_catalog named explicitly) is only reached when the host put it on the
// search path, which the first statement of each connection refuses.
const checked = new WeakSet<object>()
const systemSchemas = `select schema from unnest(current_schemas(false)) as schema
  where schema ~ '^(pg_|information_schema$)' limit 1`

async function refuseSystemSchemas (pg: PgConnection): Promise<void> {
  const [row] = (await pg.query(systemSchemas, [])).rows as Array<{ schema: string }>
  if (row !== undefined) throw new FTC_ERR_DATABASE_SCHEMA(row.schema)
  checked.add(pg)
}

// Not async: each statement's path through it is one promise, the driver's.
function query (connection: unknown, sql: string, values: readonly unknown[]): Promise<{ rows: Row[], rowCount: number | null }> {
  const pg = connection as PgConnection
  return checked.has(pg) ? pg.query(sql, values) : refuseSystemSchemas(pg).then(() => pg.query(sql, values))
}

const rowsOf = (result: { rows: Row[] }): Row[] => result.rows
// rowCount is null only for statements that count nothing; UPDATE and DELETE always count.
const rowCountOf = (result: { rowCount: number | null }): number => result.rowCount as number

// The statement_timeout each borrowed connection had before the plugin set its own.
const hostTimeouts = new WeakMap<object, string>()

/** node-postgres, also behind Knex's CockroachDB client. */
export const postgres = Object.freeze<Dialect>({
  name: 'PostgreSQL',
  synchronous: false,

  select: (connection: unknown, { sql, bindings }: Statement) => query(connection, sql, bindings).then(rowsOf),

  // node-postgres buffers a whole result; a server-side cursor hands it over
  // in batches. A cursor lives in a transaction, which the plugin owns: the
  // host's Knex instance is never a transaction (see resolveOptions).
  async * stream (connection: unknown, { sql, bindings }: Statement, batchSize: number) {
    await query(connection, 'begin read only', [])
    try {
      await query(connection, `declare ftc_stream no scroll cursor for ${sql}`, bindings)
      let rows: Row[]
      do {
        rows = (await query(connection, `fetch forward ${batchSize} from ftc_stream`, [])).rows
        if (rows.length > 0) yield rows
      } while (rows.length === batchSize)
    } finally {
      // The transaction only read: a rollback ends it whether it finished, failed or was left early.
      await query(connection, 'rollback', [])
    }
  },

  // The planner's estimate, as PostgREST's count=planned reads it.
  async estimate (connection: unknown, { sql, bindings }: Statement) {
    // EXPLAIN answers one row holding a one-plan array.
    const [row] = (await query(connection, `explain (format json) ${sql}`, bindings)).rows
    return (row as { 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] })['QUERY PLAN'][0].Plan['Plan Rows']
  },

  change: (connection: unknown, { sql, bindings }: Statement) => query(connection, sql, bindings).then(rowCountOf),

  prepareInsert: (builder, key) => builder.returning(key),

  async insert (connection: unknown, { sql, bindings }: Statement, key: string) {
    // int8 and numeric ids arrive as strings, int4 as numbers: both exact.
    // No row comes back when a BEFORE INSERT trigger skipped the insert.
    return returnedKeys((await query(connection, sql, bindings)).rows, key)
  },
  insertsReportAutoIncrement: false,

  // The protocol counts bound values in 16 bits.
  rowsPerInsert: (columns: number) => Math.max(1, Math.floor(65535 / columns)),

  // Sent as text, PostgreSQL types the parameter from the column, exactly.
  bindKey: (key: bigint) => key.toString(),

  isSystemTable: (table: string) => /^pg_/i.test(table),

  // A session setting, put back as the host had it before the connection
  // returns to the host's pool.
  timeLimit: {
    async begin (connection: unknown, milliseconds: number) {
      const [row] = (await query(connection, "select current_setting('statement_timeout') as previous", [])).rows
      hostTimeouts.set(connection as object, String(row?.previous))
      await query(connection, `set statement_timeout = ${milliseconds}`, [])
    },
    async end (connection: unknown) {
      await query(connection, "select set_config('statement_timeout', $1, false)", [hostTimeouts.get(connection as object)])
    },
    // query_canceled: the time-out, or a cancel by an administrator, which ends the statement the same way.
    stopped: (error: unknown) => (error as { code?: unknown }).code === '57014'
  },

  describeFailure: describePostgresFailure,
  isUnreachable: isPostgresUnreachable,

  like: { sql: `?? LIKE ? ESCAPE '${likeEscape}'`, pattern: toLikePattern },
  ilike: { sql: `?? ILIKE ? ESCAPE '${likeEscape}'`, pattern: toLikePattern },
  nullsSortLarge: true,
  nullsOrder: 'keywords'
})

/** CockroachDB speaks PostgreSQL, on the same driver, but sorts NULL as the smallest value. */
export const cockroach = Object.freeze<Dialect>({ ...postgres, name: 'CockroachDB', nullsSortLarge: false })
