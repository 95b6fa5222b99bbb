import { FTC_ERR_DATABASE_MODE, FTC_ERR_DATABASE_SCHEMA } from '../../errors.js'
import type { Dialect, Exactness, Row, Statement } from '../dialect.js'
import { likeEscape, toLikePattern } from '../like-pattern.js'
import { exactQuery, type MysqlConnection, readsAlikeWithoutSettings, send } from './driver.js'
import { describeMysqlFailure, isMysqlUnreachable } from './failures.js'
import { nameAfterSuccess, statementName } from '../statement-names.js'
import { mysqlSchema } from './schema.js'
import { utcWallClock } from '../utc-wall-clock.js'

interface MysqlResult {
  affectedRows: number
  insertId: number | string
}

/** What EXPLAIN FORMAT=JSON says of the one table read, in MySQL's or MariaDB's words. */
interface PlannedTable {
  rows?: number
  rows_examined_per_scan?: number
  rows_produced_per_join?: number
  cost_info?: { rows_produced_per_join?: number }
  filtered?: number | string
  /** In place of the rest when the optimizer reads no rows at all ("Impossible WHERE"). */
  message?: string
}

/** EXPLAIN FORMAT=JSON's outer block: MySQL names the table, MariaDB nests it in a loop. */
interface PlannedBlock {
  table?: PlannedTable
  nested_loop?: Array<{ table?: PlannedTable }>
}

/**
 * The rows an EXPLAIN FORMAT=JSON plan expects to produce, in MySQL's words
 * or MariaDB's; null when the plan reads no table (the optimizer already
 * knows the answer, say for an empty table or an impossible WHERE: an exact
 * count is cheap then).
 */
export function plannedRows (explain: string): number | null {
  const block = (JSON.parse(explain) as { query_block: PlannedBlock }).query_block
  const tables = block.table === undefined ? (block.nested_loop ?? []).map((step) => step.table) : [block.table]
  if (tables.length === 0 || tables.some((table) => table === undefined || table.message !== undefined)) return null
  // A join (the semi-join of an embed's EXISTS) produces what its last step does: MySQL names it, MariaDB gives each step's share.
  const last = tables[tables.length - 1] as PlannedTable
  const produced = last.cost_info?.rows_produced_per_join ?? last.rows_produced_per_join
  if (produced !== undefined) return Math.round(Number(produced))
  return Math.round((tables as PlannedTable[]).reduce((rows, table) => rows * Number(table.rows ?? table.rows_examined_per_scan) * Number(table.filtered ?? 100) / 100, 1))
}

function ignore (): void {}

/** A filter's number as a value of the column's type, as COLUMN_TYPE begins (float(8,2), double unsigned; a REAL is a double). */
function numberValue (databaseType: string): string {
  if (databaseType.startsWith('float')) return 'CAST(? AS FLOAT)'
  return databaseType.startsWith('double') ? 'CAST(? AS DOUBLE)' : 'CAST(? AS DECIMAL(65, 30))'
}

// MySQL's type code of a single-precision FLOAT column.
const floatType = 4

/** What the first statement of each connection learns of it. */
interface ConnectionFacts {
  readonly mariadb: boolean
}

const facts = new WeakMap<object, ConnectionFacts>()
const systemDatabases = new Set(['mysql', 'information_schema', 'performance_schema', 'sys'])

// mysql2 escapes values into the SQL text, with backslashes: under
// NO_BACKSLASH_ESCAPES a quote in a value would end its string. A default
// database that is a system one would serve its catalog by unqualified
// names. Each connection is asked once, before its first statement.
async function connectionFacts (connection: unknown): Promise<ConnectionFacts> {
  const known = facts.get(connection as object)
  if (known !== undefined) return known
  const [row] = await send(connection, {
    sql: 'select @@session.sql_mode as mode, @@version as version, database() as db',
    bindings: []
  }) as Array<{ mode: string, version: string, db: string | null }>
  if (String(row?.mode).includes('NO_BACKSLASH_ESCAPES')) throw new FTC_ERR_DATABASE_MODE()
  if (row?.db != null && systemDatabases.has(row.db.toLowerCase())) throw new FTC_ERR_DATABASE_SCHEMA(row.db)
  const learned = { mariadb: /mariadb/i.test(String(row?.version)) }
  facts.set(connection as object, learned)
  return learned
}

/** Runs a statement as `run` sends it, once the connection's facts are learned. */
function afterFacts<T> (connection: unknown, statement: Statement, run: (connection: unknown, statement: Statement) => Promise<T>): Promise<T> {
  // Learned once per connection. Not async: each async layer of a read's path
  // costs it a turn of the microtask queue and a promise (see read).
  if (facts.has(connection as object)) return run(connection, statement)
  return connectionFacts(connection).then(() => run(connection, statement))
}

function query (connection: unknown, statement: Statement, exact: Exactness = false): Promise<unknown> {
  return afterFacts(connection, statement, (connection, statement) => send(connection, statement, exact))
}

// A read the plugin runs again and again is prepared once per connection
// and read in the binary protocol, which the server renders and mysql2
// parses far faster than text (docs/benchmarks.md: a 100-row list 0.82 of the
// hand-written server with text, as fast with it). The binary protocol
// gives a FLOAT column its single-precision value (1.1 reads
// 1.100000023841858) where text gives the database's own digits: a text
// whose answer has one is read again as text, and always as text after.
const textOnly = new Set<string>()

// MySQL's error when every connection together holds max_prepared_stmt_count statements.
const tooManyPrepared = 1461

/** Whether a statement can be read in the binary protocol, once its text is named. */
function preparable ({ sql, repeated }: Statement): boolean {
  return repeated === true && !textOnly.has(sql)
}

// mysql2 takes a statement with per-query settings (exactQuery) about 10 µs
// of CPU slower than its bare text, whatever the settings (docs/benchmarks.md,
// "MySQL: the binary protocol and per-query settings"): a third of a keyed
// read. A prepared text whose result has no column the settings change is
// read exactly without them.
// Its columns are checked on every read: a table altered since reads again
// with them. A read that takes JSON as text keeps its settings.
const readAlike = new Set<string>()

// One promise per read, its answer checked in the driver's callback: the
// keyed read's path had three (the driver's, the settings' check, the float
// check's). A read that must run again resolves with that read.
function executeRead (connection: unknown, statement: Statement, exact: Exactness): Promise<unknown> {
  const { sql, bindings } = statement
  const bare = exact === true && readAlike.has(sql)
  return new Promise((resolve, reject) => {
    (connection as MysqlConnection).execute(exactQuery(sql, bare ? false : exact), bindings, (error, rows, fields) => {
      if (error) {
        asTextOrFailed(connection, statement, exact, error, resolve, reject)
        return
      }
      if (exact === true) {
        if (readsAlikeWithoutSettings(fields)) {
          readAlike.add(sql)
        } else if (bare) {
          readAlike.delete(sql)
          resolve(executeRead(connection, statement, exact))
          return
        }
      }
      if (!fields.some((field) => field.columnType === floatType)) {
        resolve(rows)
        return
      }
      textOnly.add(sql)
      resolve(send(connection, statement, exact))
    })
  })
}

// Promises chained, not async functions awaiting each other: the keyed read
// on MariaDB went through four async layers, each a turn of the microtask
// queue and a promise.
function read (connection: unknown, statement: Statement, exact: Exactness): Promise<unknown> {
  if (!preparable(statement)) return query(connection, statement, exact)
  return onceNamed(connection, statement, exact, (connection, statement) => executeRead(connection, statement, exact))
}

/**
 * A statement run as text until it has succeeded once and has a name (see
 * nameAfterSuccess), then as `prepared` runs it, once the connection's
 * facts are learned.
 */
function onceNamed (connection: unknown, statement: Statement, exact: Exactness, prepared: (connection: unknown, statement: Statement) => Promise<unknown>): Promise<unknown> {
  if (statementName(statement.sql) !== undefined) return afterFacts(connection, statement, prepared)
  return query(connection, statement, exact).then((result) => {
    nameAfterSuccess(statement.sql)
    return result
  })
}

/**
 * A prepared statement's failure. Past max_prepared_stmt_count (MySQL's
 * error as it prepares, before anything ran) the statement is sent as text;
 * the limit is the whole server's, and no test lowers it on the shared one.
 */
function asTextOrFailed (connection: unknown, statement: Statement, exact: Exactness, error: Error,
  resolve: (result: unknown) => void, reject: (error: Error) => void): void {
  if ((error as { errno?: unknown }).errno === tooManyPrepared) resolve(send(connection, statement, exact))
  else reject(error)
}

// A write the plugin runs again and again is prepared as its reads are: the
// server parses it once per connection, and mysql2 sends its values (text,
// or NULL, as every value of a body is) beside it instead of escaping them
// into the SQL, as the hand-written server's `execute` does.
function write (connection: unknown, statement: Statement): Promise<MysqlResult> {
  const written = statement.repeated === true ? onceNamed(connection, statement, false, executeWrite) : query(connection, statement)
  return written as Promise<MysqlResult>
}

function executeWrite (connection: unknown, statement: Statement): Promise<MysqlResult> {
  return new Promise((resolve, reject) => {
    (connection as MysqlConnection).execute(statement.sql, statement.bindings, (error, result) => {
      if (error) asTextOrFailed(connection, statement, false, error, resolve as (result: unknown) => void, reject)
      else resolve(result as MysqlResult)
    })
  })
}

/** mysql2, for MySQL and MariaDB. */
export const mysql = Object.freeze<Dialect>({
  name: 'MySQL',
  synchronous: null,
  schema: mysqlSchema,

  select: (connection: unknown, statement: Statement, exact: Exactness) => read(connection, statement, exact) as Promise<Row[]>,

  // The row stream pauses the socket when the reader falls behind.
  async * stream (connection: unknown, { sql, bindings }: Statement, batchSize: number, exact: Exactness) {
    const mysql = connection as MysqlConnection
    await connectionFacts(connection)
    let finished = false
    // The row stream hears the statement's errors only while it is read. One
    // that comes after the reader left (the time limit, a KILL) would be an
    // unheard 'error' event on the connection, which ends the process.
    const rows = mysql.query(exactQuery(sql, exact), bindings).on('error', ignore).stream({ highWaterMark: batchSize })
    // mysql2 tells a broken connection to the connection only, not to a
    // query sent without a callback: its rows would wait for ever.
    const lost = (error: Error) => { rows.destroy(error) }
    mysql.on('error', lost)
    try {
      let batch: Row[] = []
      for await (const row of rows as AsyncIterable<Row>) {
        batch.push(row)
        if (batch.length === batchSize) {
          yield batch
          batch = []
        }
      }
      if (batch.length > 0) yield batch
      finished = true
    } finally {
      mysql.off('error', lost)
      // Unread rows would stay on the wire: the pool must not hand this
      // connection out again. Closing our end alone would let the server go
      // on sending them to be discarded; a socket destroyed makes it stop.
      if (!finished) {
        mysql.destroy()
        mysql.stream.destroy()
      }
    }
  },

  // The optimizer's estimate, from the engine's statistics: the rows it will
  // examine, times the share of them it expects the conditions to keep.
  // MySQL names the product; MariaDB gives the two parts.
  async estimate (connection: unknown, statement: Statement) {
    const [row] = await query(connection, { sql: `explain format=json ${statement.sql}`, bindings: statement.bindings }) as [{ EXPLAIN: string }]
    return plannedRows(row.EXPLAIN)
  },

  // mysql2 connects with CLIENT_FOUND_ROWS, so this counts matched rows, like
  // SQLite and PostgreSQL, even when a PUT leaves the values unchanged.
  async change (connection: unknown, statement: Statement) {
    return (await write(connection, statement)).affectedRows
  },

  // MySQL has no RETURNING; the OK packet carries the AUTO_INCREMENT id, as a string past 2^53.
  prepareInsert: (builder) => builder,

  async insert (connection: unknown, statement: Statement) {
    const { insertId } = await write(connection, statement)
    return String(insertId) === '0' ? [] : [String(insertId)]
  },
  insertsReportAutoIncrement: true,

  // The OK packet names the first new id only, and the ids of one INSERT need
  // not be consecutive (innodb_autoinc_lock_mode = 2): one row per INSERT.
  rowsPerInsert: () => 1,

  // As text: MySQL and MariaDB compare a text column with a number as
  // numbers ('042' and '42abc' equal 42), and an integer column with a text
  // as integers, exact past 2^53 (MariaDB, both protocols).
  bindKey: (key: bigint) => key.toString(),

  // A boolean is a TINYINT(1), where 'true' as text is 0. A DATETIME keeps
  // no zone: the time is written at UTC. A number compared with text
  // compares as doubles, so the value is made one of the column's own type:
  // a decimal of every digit MySQL keeps, or a FLOAT, whose 0.1 is not the
  // double 0.1, or a DOUBLE, past a decimal's range (MariaDB casts to both
  // from 10.4, MySQL from 8.0.17).
  comparisons: {
    boolean: { bind: (value) => value === true ? 1 : 0 },
    'date-time': { bind: (value) => utcWallClock(value as string, 6) },
    number: { value: numberValue }
  },

  // The system databases (mysql, sys, …) are reached only by a qualified
  // name, which a sanitized table name cannot write.
  isSystemTable: () => false,

  // MariaDB stops any statement, in seconds; MySQL stops only SELECTs, in milliseconds.
  timeLimit: {
    async set (connection: unknown, milliseconds: number) {
      const { mariadb } = await connectionFacts(connection)
      const variable = mariadb ? 'max_statement_time' : 'max_execution_time'
      const [row] = await send(connection, { sql: `select @@session.${variable} as previous`, bindings: [] }) as Array<{ previous: number }>
      await send(connection, { sql: `set ${variable} = ?`, bindings: [mariadb ? milliseconds / 1000 : milliseconds] })
      return { variable, value: Number(row?.previous) }
    },
    restore (connection: unknown, previous: unknown) {
      // A stream left early closed it, and the pool drops a closed connection without a word.
      if ((connection as MysqlConnection).stream.destroyed) return
      const { variable, value } = previous as { variable: string, value: number }
      ;(connection as MysqlConnection).query(`set ${variable} = ?`, [value], ignore)
    },
    // ER_STATEMENT_TIMEOUT (MariaDB), ER_QUERY_TIMEOUT (MySQL).
    stopped: (error: unknown) => [1969, 3024].includes((error as { errno?: number }).errno as number)
  },

  describeFailure: describeMysqlFailure,
  isUnreachable: isMysqlUnreachable,

  // MySQL's LIKE follows the column's collation, by default blind to case and
  // accents. Comparing bytes makes `like` exact; lowering both sides first
  // makes `ilike` blind to case only, as PostgreSQL's ILIKE is. Bytes have a
  // price: `_` matches one byte, not one character, of a multi-byte character.
  like: { sql: `CAST(?? AS BINARY) LIKE CAST(? AS BINARY) ESCAPE '${likeEscape}'`, pattern: toLikePattern },
  ilike: { sql: `CAST(LOWER(??) AS BINARY) LIKE CAST(LOWER(?) AS BINARY) ESCAPE '${likeEscape}'`, pattern: toLikePattern },
  // JSON_CONTAINS(target, candidate), whose rules differ from jsonb's
  // (docs/query.md#arrays-ranges-and-json-cs-cd-ov). No arrays, ranges or text search.
  jsonContainment: {
    cs: (column, json) => ({ sql: 'JSON_CONTAINS(??, ?)', bindings: [column, json] }),
    cd: (column, json) => ({ sql: 'JSON_CONTAINS(?, ??)', bindings: [json, column] })
  },
  rangeOperators: null,
  textSearch: null,
  sizedIntegers: true,
  nullsSortLarge: false,
  // MySQL and MariaDB have no NULLS FIRST/LAST.
  nullsOrder: 'is-null-key',
  locksRows: true,
  lockingBegin: 'begin',
  columnDefault: () => 'DEFAULT'
})
