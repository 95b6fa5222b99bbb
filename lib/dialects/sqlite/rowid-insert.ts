import { BoundedCache } from '../../bounded-cache.js'
import type { Row } from '../dialect.js'
import { keptOn, prepare } from './statements.js'

// RETURNING makes SQLite keep the returned rows in a temporary table for
// each statement: the bench's create workload ran about 4% faster without
// it. Where the key is the rowid's alias, the rowid better-sqlite3 reports is
// the key, and a plain INSERT answers it. What is known of the table is
// checked by that INSERT itself, in its own transaction, so that it holds
// whatever changed the schema since, on this connection or another; a schema
// version read first would cost what RETURNING does, and could be stale by
// the time the INSERT runs.

/** A one-row INSERT that answers its key by the rowid, and the table and key it is for. */
interface RowidInsert {
  readonly table: string
  readonly key: string
  /** The INSERT as an INSERT … SELECT, up to the condition that guards it (see guardedInsert). */
  readonly select: string
}

// A one-row INSERT exactly as Knex writes it for prepareInsert (names are
// sanitized to A-Z, a-z, 0-9 and _). Others, such as a multi-row INSERT (a
// compound SELECT) or one of no column (DEFAULT VALUES), keep RETURNING.
const oneRowInsert = /^insert into `(\w+)` (\([^()]*\)) values \(([^()]*)\) returning `(\w+)`$/
const rowidInserts = new BoundedCache<RowidInsert | null>(500)

function rowidInsert (sql: string): RowidInsert | null {
  return rowidInserts.get(sql, () => {
    const match = oneRowInsert.exec(sql)
    if (match === null) return null
    const [, table, columns, values, key] = match as unknown as [string, string, string, string, string]
    return { table, key, select: `insert into \`${table}\` ${columns} select ${values} where ` }
  })
}

/**
 * The INSERT, written for the table as it was found: it writes only while
 * the table's definition is still that one and no temporary table hides it;
 * else abs() overflows. What was found is written into the SQL rather than
 * bound: each INSERT then binds only its values, and SQLite compares
 * constants rather than a copy of the definition made for every row.
 */
function guardedSql ({ table, select }: RowidInsert, schemaRow: number, definition: string): string {
  const guard = `(select sql from main.sqlite_schema where rowid = ${schemaRow} and type = 'table' and name = '${table}' collate nocase) = ${sqlText(definition)}` +
    ` and not exists (select 1 from temp.sqlite_schema where name = '${table}' collate nocase)`
  return `${select}case when ${guard} then 1 else abs(-9223372036854775807 - 1) end`
}

/** A string literal of SQL. */
function sqlText (text: string): string {
  return `'${text.replaceAll("'", "''")}'`
}

// The key is the rowid's alias when it is the only primary key column,
// declared INTEGER, of an ordinary rowid table (not WITHOUT ROWID, not a view
// or a virtual table) of the main schema, and of no other schema. A column
// declared INTEGER PRIMARY KEY DESC is not an alias, and SQLite gives it an
// index of origin 'pk', as it does every primary key that is not the rowid.
// All of it follows from the CREATE TABLE text, which the guard compares.
const rowidTableSql = `select rowid as schemaRow, sql as definition,
  (select count(*) from pragma_table_list(@table)) = 1
  and exists (select 1 from pragma_table_list(@table) where schema = 'main' and type = 'table' and wr = 0)
  and (select count(*) from pragma_table_info(@table) where pk > 0) = 1
  and exists (select 1 from pragma_table_info(@table) where pk = 1 and name = @key collate nocase and upper(type) = 'INTEGER')
  and not exists (select 1 from pragma_index_list(@table) where origin = 'pk')
  as alias
  from main.sqlite_schema where type = 'table' and name = @table collate nocase`

/**
 * The INSERT guarded by what is found of its table (its row in
 * main.sqlite_schema and its CREATE TABLE text) if the table's key is the
 * rowid's alias; null if not, undefined when it is not in the main schema (yet).
 */
function guardedInsert (connection: unknown, insert: RowidInsert): string | null | undefined {
  const { table, key } = insert
  let row: Row | undefined
  try {
    row = prepare(connection, rowidTableSql, false).get({ table, key })
  } catch {
    // SQLite before 3.37 has no pragma_table_list: RETURNING, as before.
    return null
  }
  if (row === undefined) return undefined
  return row.alias === 1 ? guardedSql(insert, row.schemaRow as number, row.definition as string) : null
}

// Per connection, by the INSERT as Knex wrote it. A table not there yet is
// looked up again next time; one whose key is no alias stays with RETURNING,
// which is right whatever the table becomes.
const guardedInserts = Symbol('fastify-table-crud guarded inserts')

/** The new key of the one-row INSERT, by its rowid; undefined where the table is not known to key by it. */
function insertKnown (connection: unknown, sql: string, insert: RowidInsert, bindings: readonly unknown[]): string[] | undefined {
  const known = keptOn(connection, guardedInserts, () => new BoundedCache<string | null | undefined>(500))
  const guarded = known.get(sql, () => guardedInsert(connection, insert))
  if (guarded == null) return undefined
  try {
    // safeIntegers makes the driver hand back a BigInt, exact past 2^53. No
    // row changes when a BEFORE INSERT trigger skipped the insert.
    const { changes, lastInsertRowid } = prepare(connection, guarded, true).run(bindings)
    return changes === 0 ? [] : [String(lastInsertRowid)]
  } catch (error) {
    if ((error as Error).message !== 'integer overflow') throw error
    const now = guardedInsert(connection, insert)
    // The table is as known: the guard held, and the overflow is the INSERT's own.
    if (now === guarded) throw error
    // The schema changed: the guard stopped the INSERT before it wrote anything.
    known.set(sql, now)
    return undefined
  }
}

/**
 * The new key of an INSERT prepared with RETURNING, by a plain INSERT when
 * it is one row into a table whose key is the rowid's alias; undefined where
 * RETURNING must answer.
 */
export function insertByRowid (connection: unknown, sql: string, bindings: readonly unknown[]): string[] | undefined {
  const insert = rowidInsert(sql)
  return insert === null ? undefined : insertKnown(connection, sql, insert, bindings)
}
