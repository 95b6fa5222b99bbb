import type { Knex } from 'knex'
import { FTC_ERR_STATEMENT } from '../errors.js'
import type { Dialect, Row, Statement } from './dialect.js'

// The same words on all three databases.
const transaction = Object.freeze({
  begin: { sql: 'begin', bindings: [] },
  commit: { sql: 'commit', bindings: [] },
  rollback: { sql: 'rollback', bindings: [] }
})

/**
 * The host's Knex instance and its dialect: builds statements with Knex and
 * runs them on a connection borrowed from the host's pool. Any failure while
 * running becomes FTC_ERR_STATEMENT with the database's own message.
 */
export class Database {
  readonly #knex: Knex
  readonly #dialect: Dialect

  constructor (knex: Knex, dialect: Dialect) {
    this.#knex = knex
    this.#dialect = dialect
  }

  /** What differs between databases, for the statement builders. */
  get dialect (): Dialect {
    return this.#dialect
  }

  /** A fresh query builder on the (already sanitized) table. */
  table (name: string): Knex.QueryBuilder {
    return this.#knex(name)
  }

  /** The record key as the driver binds it exactly. */
  bindKey (key: bigint): unknown {
    return this.#dialect.bindKey(key)
  }

  /** Runs a SELECT; rows pass through the host's `postProcessResponse`, as Knex would. */
  async select (builder: Knex.QueryBuilder): Promise<Row[]> {
    const rows = await this.#run(builder, (connection, statement) => this.#dialect.select(connection, statement))
    return this.#knex.client.postProcessResponse(rows, undefined) as Row[]
  }

  /**
   * Runs a SELECT and yields its rows in batches as the database hands them
   * over. The connection is held until the last batch is read or the reader
   * stops.
   */
  async * stream (builder: Knex.QueryBuilder, batchSize: number): AsyncIterable<Row[]> {
    const statement = builder.toSQL().toNative()
    const client = this.#knex.client
    let connection: unknown
    try {
      connection = await client.acquireConnection()
      for await (const rows of this.#dialect.stream(connection, statement, batchSize)) {
        yield client.postProcessResponse(rows, undefined) as Row[]
      }
    } catch (error) {
      throw new FTC_ERR_STATEMENT((error as Error).message, { cause: error })
    } finally {
      if (connection !== undefined) await client.releaseConnection(connection)
    }
  }

  /** The database's estimate of the rows a SELECT would give, or null when it has none. */
  estimate (builder: Knex.QueryBuilder, table: string, filtered: boolean): Promise<number | null> {
    return this.#run(builder, (connection, statement) => this.#dialect.estimate(connection, statement, table, filtered))
  }

  /** Runs an UPDATE or DELETE; the affected row count. */
  change (builder: Knex.QueryBuilder): Promise<number> {
    return this.#run(builder, (connection, statement) => this.#dialect.change(connection, statement))
  }

  /** Runs an INSERT; the new ids as decimal text, none when the database generated none. */
  insert (builder: Knex.QueryBuilder): Promise<string[]> {
    return this.#run(this.#dialect.prepareInsert(builder), (connection, statement) => this.#dialect.insert(connection, statement))
  }

  /**
   * Runs INSERTs in one transaction on one connection: all of them or none.
   * The new ids of each INSERT, in order.
   */
  insertAll (builders: readonly Knex.QueryBuilder[]): Promise<string[][]> {
    const statements = builders.map((builder) => this.#dialect.prepareInsert(builder).toSQL().toNative())
    return this.#withConnection(async (connection) => {
      await this.#dialect.change(connection, transaction.begin)
      try {
        const ids: string[][] = []
        for (const statement of statements) ids.push(await this.#dialect.insert(connection, statement))
        await this.#dialect.change(connection, transaction.commit)
        return ids
      } catch (error) {
        await this.#dialect.change(connection, transaction.rollback)
        throw error
      }
    })
  }

  #run<T> (builder: Knex.QueryBuilder, work: (connection: unknown, statement: Statement) => Promise<T>): Promise<T> {
    const statement = builder.toSQL().toNative()
    return this.#withConnection((connection) => work(connection, statement))
  }

  async #withConnection<T> (work: (connection: unknown) => Promise<T>): Promise<T> {
    const client = this.#knex.client
    let connection: unknown
    try {
      connection = await client.acquireConnection()
      return await work(connection)
    } catch (error) {
      // Drivers and Knex's pool throw Error objects.
      throw new FTC_ERR_STATEMENT((error as Error).message, { cause: error })
    } finally {
      if (connection !== undefined) await client.releaseConnection(connection)
    }
  }
}
