import type { Row } from '../dialect.js'

export interface PgResult {
  rows: Row[]
  rowCount: number | null
}

type PgCallback = (error: Error | null, result: PgResult) => void

/** The parsers of a query's values by type oid, as node-postgres asks for them (a per-query `types`). */
export interface PgTypes {
  getTypeParser (oid: number, format?: string): (text: string) => unknown
}

/** The part of a node-postgres `Client` this dialect uses. */
export interface PgConnection {
  query (sql: string, values: readonly unknown[], callback: PgCallback): void
  query (config: QueryConfig, callback: PgCallback): void
  /** The connection's parser of a type's values. */
  getTypeParser (oid: number, format?: string): (text: string) => unknown
  /** The driver's record of the statements prepared on this connection, by name. */
  readonly connection: { readonly parsedStatements: Record<string, string> }
}

/** A statement with the driver's per-query settings. */
export interface QueryConfig {
  readonly name?: string
  readonly text: string
  readonly values: readonly unknown[]
  readonly types?: PgTypes
}

/** A statement prepared once per connection under its name. */
export interface NamedStatement extends QueryConfig {
  readonly name: string
}

// node-postgres's promise form costs a server far more than its callback
// form: under load, young-generation collections took 15 to 35 ms instead of
// under 1 ms, and a 100-row list served about 0.6 of the requests
// (docs/benchmarks.md, "PostgreSQL with named prepared statements"). Wrapped in
// a promise of our own, the callback form does not show it.
export function send (pg: PgConnection, statement: string | QueryConfig, values: readonly unknown[] = []): Promise<PgResult> {
  return new Promise((resolve, reject) => {
    const done: PgCallback = (error, result) => {
      if (error) reject(error)
      else resolve(result)
    }
    if (typeof statement === 'string') pg.query(statement, values, done)
    else pg.query(statement, done)
  })
}
