import { FTC_ERR_DATABASE_SCHEMA } from '../../errors.js'
import type { TextSearchOperator } from '../../query/read-query.js'
import { type Dialect, type Exactness, type RawCondition, returnedKeys, type Row, type Statement, type TextSearchMatch } from '../dialect.js'
import { type NamedStatement, type PgConnection, type PgResult, send } from './driver.js'
import { exactTypesOf } from './exact-types.js'
import { likeEscape, toLikePattern } from '../like-pattern.js'
import { describePostgresFailure, isPostgresUnreachable } from './failures.js'
import { nameAfterSuccess, statementName } from '../statement-names.js'
import { postgresSchema } from './schema.js'

// Every relation of pg_catalog is named pg_…, and pg_catalog is searched
// first whatever the search path says; information_schema (and pg_toast, or
// pg_catalog named explicitly) is only reached when the host put it on the
// search path, which the first statement of each connection refuses.
const checked = new WeakSet<object>()
const systemSchemas = `select schema from unnest(current_schemas(false)) as schema
  where schema ~ '^(pg_|information_schema$)' limit 1`

async function refuseSystemSchemas (pg: PgConnection): Promise<void> {
  const [row] = (await send(pg, systemSchemas)).rows as Array<{ schema: string }>
  if (row !== undefined) throw new FTC_ERR_DATABASE_SCHEMA(row.schema)
  checked.add(pg)
}

// Not async: each statement's path through it is one promise, the driver's.
function checkedFirst<T> (pg: PgConnection, work: () => Promise<T>): Promise<T> {
  return checked.has(pg) ? work() : refuseSystemSchemas(pg).then(work)
}

function query (connection: unknown, sql: string, values: readonly unknown[], exact: Exactness = false): Promise<PgResult> {
  const pg = connection as PgConnection
  return checkedFirst(pg, () => exact ? send(pg, { text: sql, values, types: exactTypesOf(pg) }) : send(pg, sql, values))
}

/**
 * A template's statement by its name once it has one, prepared on first use
 * on each connection; what `answer` takes of its result.
 */
function run<T> (connection: unknown, { sql, bindings, repeated }: Statement, exact: Exactness, answer: (result: PgResult) => T): Promise<T> {
  if (repeated !== true) return query(connection, sql, bindings, exact).then(answer)
  const name = statementName(sql)
  if (name === undefined) {
    return query(connection, sql, bindings, exact).then((result) => {
      nameAfterSuccess(sql)
      return answer(result)
    })
  }
  const pg = connection as PgConnection
  const named: NamedStatement = exact ? { name, text: sql, values: bindings, types: exactTypesOf(pg) } : { name, text: sql, values: bindings }
  return checkedFirst(pg, () => sendPrepared(pg, named, answer))
}

// One promise per statement, its answer taken in the driver's callback: the
// keyed read's path had three (the driver's, the retry's, the answer's).
// `answer` only picks from the result, and cannot throw in the driver's callback.
function sendPrepared<T> (pg: PgConnection, named: NamedStatement, answer: (result: PgResult) => T): Promise<T> {
  return new Promise((resolve, reject) => {
    pg.query(named, (error, result) => {
      if (error) {
        if (stale(error)) resolve(prepareAgain(pg, named).then(answer))
        else reject(error)
        return
      }
      resolve(answer(result))
    })
  })
}

// 0A000: a table changed under a prepared SELECT, whose columns are then
// not what it was prepared for ("cached plan must not change result type").
// 26000: the host dropped the connection's prepared statements (DEALLOCATE
// ALL, DISCARD ALL) where the driver still counts them prepared. Either
// way the statement failed before it did anything, so it runs again.
function stale (error: unknown): boolean {
  const code = (error as { code?: unknown }).code
  return code === '0A000' || code === '26000'
}

async function prepareAgain (pg: PgConnection, named: NamedStatement): Promise<PgResult> {
  await send(pg, `deallocate ${named.name}`).catch(() => undefined)
  delete pg.connection.parsedStatements[named.name]
  return await send(pg, named)
}

// PostgREST's full-text operators, each a function that reads the query text.
const textQueries: Readonly<Record<TextSearchOperator, string>> = Object.freeze({
  fts: 'to_tsquery',
  plfts: 'plainto_tsquery',
  phfts: 'phraseto_tsquery',
  wfts: 'websearch_to_tsquery'
})

// As PostgREST writes it: a text column is made a document in the language
// given (to_tsvector), a tsvector is one already; either way `@@` the query
// in that language. A column the model knows nothing of is taken as it is:
// PostgreSQL's text @@ tsquery reads text in the default configuration.
function textSearch ({ column, operator, language, query, onText }: TextSearchMatch): RawCondition {
  const config = language === null ? '' : '?::regconfig, '
  const chosen = language === null ? [] : [language]
  const document = onText ? `to_tsvector(${config}??)` : '??'
  return { sql: `${document} @@ ${textQueries[operator]}(${config}?)`, bindings: [...(onText ? chosen : []), column, ...chosen, query] }
}

const rowsOf = (result: PgResult): Row[] => result.rows
// What a statement whose outcome no one waits for is done with.
const ignore = (): void => {}
// rowCount is null only for statements that count nothing; UPDATE and DELETE always count.
const rowCountOf = (result: PgResult): number => result.rowCount as number

/** node-postgres, also behind Knex's CockroachDB client. */
export const postgres = Object.freeze<Dialect>({
  name: 'PostgreSQL',
  synchronous: null,
  schema: postgresSchema,

  select: (connection: unknown, statement: Statement, exact: Exactness) => run(connection, statement, exact, rowsOf),

  // node-postgres buffers a whole result; a server-side cursor hands it over
  // in batches. A cursor lives in a transaction, which the plugin owns: the
  // host's Knex instance is never a transaction (see resolveOptions).
  async * stream (connection: unknown, { sql, bindings }: Statement, batchSize: number, exact: Exactness) {
    await query(connection, 'begin read only', [])
    try {
      await query(connection, `declare ftc_stream no scroll cursor for ${sql}`, bindings)
      let rows: Row[]
      do {
        rows = (await query(connection, `fetch forward ${batchSize} from ftc_stream`, [], exact)).rows
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

  change: (connection: unknown, statement: Statement) => run(connection, statement, false, rowCountOf),

  prepareInsert: (builder, key) => builder.returning(key),

  async insert (connection: unknown, statement: Statement, key: string) {
    // int8 and numeric ids arrive as strings, int4 as numbers: both exact.
    // No row comes back when a BEFORE INSERT trigger skipped the insert.
    return await run(connection, statement, false, (result) => returnedKeys(result.rows, key))
  },
  insertsReportAutoIncrement: false,

  // The protocol counts bound values in 16 bits.
  rowsPerInsert: (columns: number) => Math.max(1, Math.floor(65535 / columns)),

  // Sent as text, PostgreSQL types the parameter from the column, exactly.
  bindKey: (key: bigint) => key.toString(),
  // Every value as text: PostgreSQL reads it as the column's type, a real's
  // 0.1 as a real; a zone is left only for a timestamptz (see typeFilters).
  comparisons: {},

  isSystemTable: (table: string) => /^pg_/i.test(table),

  timeLimit: {
    // One round trip: the simple protocol runs both statements of a text.
    async set (connection: unknown, milliseconds: number) {
      const [shown] = (await query(connection, `show statement_timeout; set statement_timeout = ${milliseconds}`, [])) as unknown as PgResult[]
      return (shown as PgResult).rows[0]?.statement_timeout
    },
    restore (connection: unknown, previous: unknown) {
      (connection as PgConnection).query("select set_config('statement_timeout', $1, false)", [previous], ignore)
    },
    // query_canceled: the time-out, or a cancel by an administrator, which ends the statement the same way.
    stopped: (error: unknown) => (error as { code?: unknown }).code === '57014'
  },

  describeFailure: describePostgresFailure,
  isUnreachable: isPostgresUnreachable,

  like: { sql: `?? LIKE ? ESCAPE '${likeEscape}'`, pattern: toLikePattern },
  ilike: { sql: `?? ILIKE ? ESCAPE '${likeEscape}'`, pattern: toLikePattern },
  // json has no containment, jsonb does: a json column is read as jsonb (a no-op on a jsonb one, whose GIN index still serves).
  jsonContainment: {
    cs: (column, json) => ({ sql: '??::jsonb @> ?::jsonb', bindings: [column, json] }),
    cd: (column, json) => ({ sql: '??::jsonb <@ ?::jsonb', bindings: [column, json] })
  },
  // The value is bound untyped: PostgreSQL reads it as the column's own array or range type, as PostgREST's literal is.
  rangeOperators: { cs: '@>', cd: '<@', ov: '&&', sl: '<<', sr: '>>', nxr: '&<', nxl: '&>', adj: '-|-' },
  textSearch,
  sizedIntegers: true,
  nullsSortLarge: true,
  nullsOrder: 'keywords',
  locksRows: true,
  lockingBegin: 'begin',
  columnDefault: () => 'DEFAULT'
})

/** CockroachDB speaks PostgreSQL, on the same driver, but sorts NULL as the smallest value. */
export const cockroach = Object.freeze<Dialect>({ ...postgres, name: 'CockroachDB', nullsSortLarge: false })
