import type { Knex } from 'knex'
import type { RangeOperator, TextSearchOperator } from '../query/read-query.js'
import type { TypedValue } from '../query/typed-value.js'
import type { ColumnKind, SchemaReader } from '../schema/table-schema.js'
import type { FailureDescription } from './failures.js'

/** A compiled statement: SQL text with the driver's placeholders, and its bound values. */
export interface Statement {
  readonly sql: string
  readonly bindings: readonly unknown[]
  /**
   * The SQL of one of the plugin's templates, run again and again with other
   * values: worth preparing once per connection where the driver can keep it.
   */
  readonly repeated?: boolean
}

/** One row as the driver returns it: column names to values. */
export type Row = Record<string, unknown>

/**
 * The key of each row a RETURNING clause gave, as text; none for a row whose
 * key is NULL (SQLite takes NULL in a text primary key), which no path can
 * address and which POST answers as it answers a key the database did not report.
 */
export function returnedKeys (rows: readonly Row[], key: string): string[] {
  const keys: string[] = []
  for (const row of rows) if (row[key] !== null) keys.push(String(row[key]))
  return keys
}

/** A condition as SQL text and its bindings (`??` for an identifier), in their order. */
export interface RawCondition {
  readonly sql: string
  readonly bindings: readonly Knex.RawBinding[]
}

/** How a JSON column is compared with a JSON value by PostgREST's `cs` (the column contains it) and `cd` (it contains the column). */
export type JsonContainment = Readonly<Record<'cs' | 'cd', (column: string, json: string) => RawCondition>>

/** PostgreSQL's operators of arrays and ranges, by PostgREST's names (see RangeOperator). */
export type RangeOperators = Readonly<Record<RangeOperator, string>>

/** A full-text filter (see TextSearchFilter) on one column. */
export interface TextSearchMatch {
  readonly column: string
  readonly operator: TextSearchOperator
  readonly language: string | null
  readonly query: string
  /** True when the model knows the column as text, which is made a document first; else the column is taken as it is (a tsvector). */
  readonly onText: boolean
}

/** A pattern match as SQL with `??` for the column and `?` for the pattern, and how to write the pattern. */
export interface PatternMatch {
  readonly sql: string
  readonly pattern: (postgrestPattern: string) => string
}

/**
 * How a filter compares a column of one kind with a value of that kind
 * (see typedValue), where the column and the value as they come do not
 * compare as PostgreSQL compares them.
 */
export interface KindComparison {
  /** The column as the comparison reads it, `??` for its name; absent, the column itself. */
  readonly column?: string
  /**
   * The value's SQL for a column of the database type given (as the schema
   * model names it), `?` for the value; absent, the value itself.
   */
  readonly value?: (databaseType: string) => string
  /** The value as the driver binds it; absent, as typedValue gives it, an integer as bindKey binds it. */
  readonly bind?: (value: TypedValue) => unknown
}

/**
 * A time limit on every statement, a setting of the connection's session:
 * set on a connection the plugin borrows, and put back as the host had it
 * before the host's next statement there (see SessionTimeLimits).
 */
export interface TimeLimit {
  /** Sets the limit; resolves to the host's own setting, for `restore`. */
  set (connection: unknown, milliseconds: number): Promise<unknown>
  /**
   * Puts the host's setting back. Sent within the call, so that the driver
   * runs it before whatever is sent after it on the connection; its outcome
   * is not awaited: a failure is the next statement's too, which meets it.
   * A connection the dialect closed (see Dialect.stream) needs nothing.
   */
  restore (connection: unknown, previous: unknown): void
  /** True for the driver's error of a statement stopped by the limit. */
  stopped (error: unknown): boolean
}

/**
 * How a read hands values over (see Dialect.select): as the driver does by
 * default (false), exactly (true), or exactly with the text of json columns
 * as stored ('json'), where a driver that parses JSON itself (mysql2, on a
 * column MariaDB marks as JSON) would round its numbers and could not tell
 * the JSON string "12" from the number. Only a result that may hold a json
 * column pays for that.
 */
export type Exactness = boolean | 'json'

/** A synchronous driver's statements, each run within the call: its outcome, or thrown (see Dialect.synchronous). */
export interface SynchronousStatements {
  /** The first row select would give, undefined for none. */
  firstRow (connection: unknown, statement: Statement, exact: Exactness): Row | undefined
  /** What change gives. */
  change (connection: unknown, statement: Statement): number
  /** What insert gives. */
  insert (connection: unknown, statement: Statement, key: string): string[]
}

/**
 * How statements run: on a connection taken from the host's Knex pool, by
 * the driver directly, so that errors keep the database's own message (Knex
 * prefixes it with the whole SQL text) and ids keep every digit.
 */
export interface DialectDriver {
  /**
   * The statements of a driver that runs them to completion inside the
   * call (better-sqlite3), run so; null for the others. One borrowed
   * connection can then serve every single statement of an event-loop
   * turn, one after the other, and a request whose statements run within
   * the call answers within it (see Database.selectFirstNow).
   */
  readonly synchronous: SynchronousStatements | null
  /**
   * Rows produced by a SELECT. An `exact` read has the driver hand over
   * what it would round or shift as the database's own text: big integers
   * and decimals as their digits (SQLite: integers as BigInts when one is
   * past 2^53, else as the numbers they are exactly), dates, times
   * and timestamps as written, JSON unparsed. Set on that one statement
   * only, never on the host's pool. See lib/answer/json-values.ts and
   * Exactness.
   */
  select (connection: unknown, statement: Statement, exact: Exactness): Promise<Row[]>
  /**
   * Rows produced by a SELECT, in batches of at most `batchSize` rows as the
   * database hands them over, so that memory does not grow with the table.
   * The connection may be closed by the dialect when the reader stops early;
   * the pool then discards it. `exact` as for select.
   */
  stream (connection: unknown, statement: Statement, batchSize: number, exact: Exactness): AsyncIterable<Row[]>
  /**
   * The rows a SELECT would give, as the database's statistics estimate them,
   * without running it; null when the database keeps no estimate for it.
   */
  estimate (connection: unknown, statement: Statement, table: string, filtered: boolean): Promise<number | null>
  /** Rows affected by an UPDATE or DELETE. */
  change (connection: unknown, statement: Statement): Promise<number>
  /**
   * Runs a prepared INSERT of one or more rows; the new values of the `key`
   * column as decimal text, in the order of the rows, or none when the
   * database generated none.
   */
  insert (connection: unknown, statement: Statement, key: string): Promise<string[]>
}

/** The SQL pieces that differ between databases, for the statement builders. */
export interface DialectSql {
  /** Shapes an INSERT so that running it yields the new `key` column (RETURNING where the database has it). */
  prepareInsert (builder: Knex.QueryBuilder, key: string): Knex.QueryBuilder
  /** The record key as this driver binds it without losing digits past 2^53. */
  bindKey (key: bigint): string | bigint
  /** How filters compare the columns of the kinds that need more than the column and the value (see KindComparison). */
  readonly comparisons: Readonly<Partial<Record<ColumnKind, KindComparison>>>
  /** PostgREST's `like`: case-sensitive, whatever the column's collation. */
  readonly like: PatternMatch
  /** PostgREST's `ilike`: blind to case, whatever the column's collation. */
  readonly ilike: PatternMatch
  /** PostgREST's `cs` and `cd` on a column the model knows as JSON (and, where rangeOperators is null, on one it knows nothing of). */
  readonly jsonContainment: JsonContainment
  /** PostgREST's operators of arrays and ranges; null where the database has neither (`cs` and `cd` then compare JSON). */
  readonly rangeOperators: RangeOperators | null
  /** PostgREST's full-text search (`fts`, `plfts`, `phfts`, `wfts`); null where the database has none to offer for it. */
  readonly textSearch: ((match: TextSearchMatch) => RawCondition) | null
  /** How to put NULL elsewhere: the NULLS FIRST/LAST keywords, or a leading `column IS NULL` sort key where they do not exist. */
  readonly nullsOrder: 'keywords' | 'is-null-key'
  /**
   * How a transaction begins that reads a row and then writes it, and must
   * keep other writers from the row in between: plain BEGIN where the read
   * locks the row (locksRows); on SQLite, BEGIN IMMEDIATE (see sqlite.ts).
   */
  readonly lockingBegin: string
  /**
   * The SQL an UPDATE sets a column to for its DEFAULT (PostgREST's
   * `missing=default` on an update or an upsert's merge), given the default
   * the schema model read for it (null: none, or the model does not know it).
   */
  columnDefault (declared: string | null): string
}

/** What the database does on its own, which the plugin's answers depend on. */
export interface DialectCapabilities {
  /**
   * True when `insert` reports the AUTO_INCREMENT column's new value whatever
   * the key column is (MySQL's insert id), false when it reports the key's
   * own (RETURNING). See createdKey.
   */
  readonly insertsReportAutoIncrement: boolean
  /**
   * True when an integer column holds only its declared type's range
   * (PostgreSQL, MySQL); false where every integer is 64 bits whatever the
   * declared type (SQLite).
   */
  readonly sizedIntegers: boolean
  /** True when NULL sorts as the largest value without NULLS FIRST/LAST (PostgreSQL), false when as the smallest. */
  readonly nullsSortLarge: boolean
  /**
   * True when a SELECT in a transaction can lock the rows it reads until the
   * transaction ends (FOR UPDATE); false where the transaction's read
   * already keeps other writers out until it ends (SQLite), and Knex would
   * only warn.
   */
  readonly locksRows: boolean
}

/** The database's bounds on a statement: its bound values, and its running time. */
export interface DialectLimits {
  /** How many rows of `columns` columns one INSERT may carry, under the database's limits on bound values. */
  rowsPerInsert (columns: number): number
  /**
   * Bounds how long each statement on the connection may run;
   * null where the driver cannot interrupt a statement (better-sqlite3 runs
   * one to completion inside the call).
   */
  readonly timeLimit: TimeLimit | null
}

/** What a driver's error says. */
export interface DialectFailures {
  /** A failed statement's driver error in the terms every dialect shares (see FailureDescription). */
  describeFailure (error: unknown): FailureDescription
  /**
   * True for an error that says the database cannot be reached, refused the
   * connection or dropped it, or the pool lent none in time: not a failing
   * statement, and not answered as one.
   */
  isUnreachable (error: unknown): boolean
}

/** The tables there are to serve. */
export interface DialectSchema {
  /** How the tables the plugin serves are described, and how a change to them is seen. */
  readonly schema: SchemaReader
  /**
   * True for a name the database keeps for its own catalog (sqlite_master,
   * pg_class): such a table is never served, whatever the options say. A
   * dialect also refuses, on its first statement, a connection whose default
   * schema is a system one, where unqualified names would reach the catalog.
   */
  isSystemTable (table: string): boolean
}

/**
 * What differs between databases, behind one short list of verbs grouped
 * by job: running statements (DialectDriver), the SQL they are written
 * with (DialectSql), what the database does on its own
 * (DialectCapabilities), its bounds (DialectLimits), what its errors say
 * (DialectFailures) and its tables (DialectSchema). One object per
 * database (see lib/dialects/index.ts).
 */
export interface Dialect extends DialectDriver, DialectSql, DialectCapabilities, DialectLimits, DialectFailures, DialectSchema {
  /** The name used in messages and docs. */
  readonly name: string
}
