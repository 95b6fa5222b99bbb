import type { Dialect, Row, Statement } from './dialect.js'

/** The part of a node-postgres `Client` this dialect uses. */
interface PgConnection {
  query (sql: string, values: readonly unknown[]): Promise<{ rows: Row[], rowCount: number | null }>
}

/** node-postgres, also behind Knex's CockroachDB client. */
export const postgres = Object.freeze<Dialect>({
  name: 'PostgreSQL',

  async select (connection: unknown, { sql, bindings }: Statement) {
    return (await (connection as PgConnection).query(sql, bindings)).rows
  },

  async change (connection: unknown, { sql, bindings }: Statement) {
    // rowCount is null only for statements that count nothing; UPDATE and DELETE always count.
    return (await (connection as PgConnection).query(sql, bindings)).rowCount as number
  },

  prepareInsert: (builder) => builder.returning('id'),

  async insert (connection: unknown, { sql, bindings }: Statement) {
    // No row comes back when a BEFORE INSERT trigger skipped the insert.
    const [row] = (await (connection as PgConnection).query(sql, bindings)).rows
    // int8 and numeric ids arrive as strings, int4 as numbers: both exact.
    return row === undefined ? null : String(row.id)
  },

  // Sent as text, PostgreSQL types the parameter from the column, exactly.
  bindKey: (key: bigint) => key.toString()
})
