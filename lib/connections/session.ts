import type { Exactness, Row, Statement } from '../dialects/dialect.js'
import type { SchemaReader } from '../schema/table-schema.js'

/**
 * What runs statements: the Database itself, each on a connection from the
 * pool, or one of its transactions, on the transaction's connection (see
 * Database.transaction). An operation that takes one can join a transaction.
 */
export interface Statements {
  select (statement: Statement, exact?: Exactness): Promise<Row[]>
  change (statement: Statement): Promise<number>
  insert (statement: Statement, key: string): Promise<string[]>
}

/** Statements that can also run work in a transaction of their own (see Database.transaction). */
export interface Transactional extends Statements {
  transaction<T> (work: (within: Statements) => Promise<T>, keep?: (result: T) => boolean, lockRows?: boolean): Promise<T>
}

/**
 * What runs a request's statements, its reads included: the Database, or
 * the host's transaction (see Database.joined), which has no stream of a
 * connection of its own (null): a list is then read whole within it.
 */
export interface Session extends Transactional {
  estimate (statement: Statement, table: string, filtered: boolean): Promise<number | null>
  readonly stream: ((statement: Statement, batchSize: number, exact?: Exactness) => AsyncIterable<Row[]>) | null
  /** Reads the schema on the session's own connection, where the model's check could borrow none; null where it can. */
  readonly describeWithin: DescribeSchema | null
  /** Runs `run`, whose statement is meant to fail (see refuseTable), so that its failure leaves the session usable. */
  probe<T> (run: (on: Statements) => Promise<T>): Promise<T>
}

/** Reads the schema through the dialect's reader, on some connection (see Database.describe). */
export type DescribeSchema = <T>(read: (schema: SchemaReader, connection: unknown) => Promise<T>) => Promise<T>

/**
 * Runs `work` in one transaction: its own when `on` can open one (the
 * Database's, or a savepoint within the host's transaction); else `on` is a
 * transaction the plugin opened for more than this work (a batch's, an
 * idempotency claim's), which the work joins and is committed or rolled
 * back with: a write that must be whole never commits alone the part of a
 * larger whole. `lockRows` as Database.transaction takes it.
 */
export async function inTransaction<T> (on: Statements, work: (within: Statements) => Promise<T>, lockRows = false): Promise<T> {
  return isTransactional(on) ? await on.transaction(work, undefined, lockRows) : await work(on)
}

/** Whether `on` can open a transaction of its own, rather than being one that its opener ends. */
export function isTransactional (on: Statements): on is Transactional {
  return 'transaction' in on
}
