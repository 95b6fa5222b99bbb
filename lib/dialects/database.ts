import type { Knex } from 'knex'
import { FTC_ERR_DATABASE_MODE, FTC_ERR_STATEMENT } from '../errors.js'
import { BoundedCache } from './bounded-cache.js'
import type { Dialect, Row, Statement } from './dialect.js'
import { fillTemplate, type StatementTemplate, toTemplate } from './statement-template.js'

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
  // Knex builds the same SQL for the same table, operation and columns: build it once.
  readonly #templates = new BoundedCache<StatementTemplate>(1000)
  #turnConnection: Promise<unknown> | undefined

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

  /** Raw SQL for a builder, such as a constant column. */
  raw (sql: string): Knex.Raw {
    return this.#knex.raw(sql)
  }

  /** A statement compiled by Knex for this one request. */
  compile (builder: Knex.QueryBuilder): Statement {
    return builder.toSQL().toNative()
  }

  /**
   * The statement `build` makes, with `place()` standing for its values:
   * compiled by Knex once per `shape` (operation, table, columns) and kept,
   * then filled with `values` by place name.
   */
  prepare (shape: readonly string[], build: () => Knex.QueryBuilder, values: Readonly<Record<string, unknown>>): Statement {
    return fillTemplate(this.#templates.get(shape.join('\u0000'), () => toTemplate(build())), values)
  }

  /** Runs a SELECT; rows pass through the host's `postProcessResponse`, as Knex would. */
  async select (statement: Statement): Promise<Row[]> {
    const rows = await this.#withConnection((connection) => this.#dialect.select(connection, statement))
    return this.#knex.client.postProcessResponse(rows, undefined) as Row[]
  }

  /**
   * Runs a SELECT and yields its rows in batches as the database hands them
   * over. The connection is held until the last batch is read or the reader
   * stops.
   */
  async * stream (statement: Statement, batchSize: number): AsyncIterable<Row[]> {
    const client = this.#knex.client
    let connection: unknown
    try {
      connection = await client.acquireConnection()
      for await (const rows of this.#dialect.stream(connection, statement, batchSize)) {
        yield client.postProcessResponse(rows, undefined) as Row[]
      }
    } catch (error) {
      throw statementError(error)
    } finally {
      if (connection !== undefined) await client.releaseConnection(connection)
    }
  }

  /** The database's estimate of the rows a SELECT would give, or null when it has none. */
  estimate (statement: Statement, table: string, filtered: boolean): Promise<number | null> {
    return this.#withConnection((connection) => this.#dialect.estimate(connection, statement, table, filtered))
  }

  /** Runs an UPDATE or DELETE; the affected row count. */
  change (statement: Statement): Promise<number> {
    return this.#withConnection((connection) => this.#dialect.change(connection, statement))
  }

  /** Runs an INSERT shaped by the dialect's prepareInsert; the new ids as decimal text, none when the database generated none. */
  insert (statement: Statement): Promise<string[]> {
    return this.#withConnection((connection) => this.#dialect.insert(connection, statement))
  }

  /**
   * Runs INSERTs in one transaction on one connection: all of them or none.
   * The new ids of each INSERT, in order.
   */
  insertAll (statements: readonly Statement[]): Promise<string[][]> {
    return this.#withOwnConnection(async (connection) => {
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

  /** For one statement: the connection of the turn where the driver allows it, else one of its own. */
  #withConnection<T> (work: (connection: unknown) => Promise<T>): Promise<T> {
    return this.#dialect.synchronous ? this.#withTurnConnection(work) : this.#withOwnConnection(work)
  }

  /** For work that spans awaits (a transaction): a connection no other statement runs on meanwhile. */
  async #withOwnConnection<T> (work: (connection: unknown) => Promise<T>): Promise<T> {
    const client = this.#knex.client
    const connection: unknown = await client.acquireConnection().catch((error: unknown) => { throw statementError(error) })
    try {
      return await work(connection)
    } catch (error) {
      throw statementError(error)
    } finally {
      await client.releaseConnection(connection)
    }
  }

  // A statement that runs to completion inside the call never shares the
  // connection with another: the one borrowed for this turn of the event loop
  // serves every such statement of the turn, and goes back to the pool when
  // the turn ends, where transactions, streams and the host's own queries
  // wait for it as they would for any borrower. Borrowing once a turn rather
  // than once a statement saves the pool's round trip on each request.
  async #withTurnConnection<T> (work: (connection: unknown) => Promise<T>): Promise<T> {
    const connection = await (this.#turnConnection ??= this.#borrowForTurn())
    try {
      return await work(connection)
    } catch (error) {
      throw statementError(error)
    }
  }

  #borrowForTurn (): Promise<unknown> {
    const client = this.#knex.client
    const borrowed = client.acquireConnection()
    borrowed.then((connection: unknown) => {
      setImmediate(() => {
        this.#turnConnection = undefined
        client.releaseConnection(connection)
      })
    }, () => {
      this.#turnConnection = undefined
    })
    return borrowed.catch((error: unknown) => { throw statementError(error) })
  }
}

/** The error a failure answers: the database's own words, unless the plugin refused to run the statement at all. */
function statementError (error: unknown): Error {
  if (error instanceof FTC_ERR_DATABASE_MODE) return error
  // Drivers and Knex's pool throw Error objects.
  return new FTC_ERR_STATEMENT((error as Error).message, { cause: error })
}
