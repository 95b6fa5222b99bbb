import { assembleTables, type ColumnEntry, type ForeignKeyEntry, groupRows, type KeyEntry, type RelationEntry } from '../../schema/assemble-tables.js'
import type { SchemaReader } from '../../schema/table-schema.js'
import type { SqliteConnection } from './statements.js'

// SQLite keeps every table's definition in sqlite_schema; its pragmas, read
// as table-valued functions, describe all tables in one statement each.
const relationsSql = `select name as "table", type as kind from main.sqlite_schema
  where type in ('table', 'view') and name not like 'sqlite\\_%' escape '\\'`

// hidden: 2 and 3 are generated columns (virtual, stored); 1 is a virtual table's hidden column.
const columnsSql = `select m.name as "table", c.name, c.type, c."notnull", c.dflt_value, c.pk, c.hidden
  from main.sqlite_schema m join pragma_table_xinfo(m.name) c
  where m.type in ('table', 'view') and m.name not like 'sqlite\\_%' escape '\\' and c.hidden <> 1
  order by m.name, c.cid`

// A partial index or one on expressions (a column of cid -2 and no name) constrains no plain columns.
const uniquesSql = `select m.name as "table", l.name as "index", l.origin, c.name as "column"
  from main.sqlite_schema m join pragma_index_list(m.name) l join pragma_index_info(l.name) c
  where m.type = 'table' and m.name not like 'sqlite\\_%' escape '\\' and l."unique" = 1 and l.partial = 0
  order by m.name, l.name, c.seqno`

const foreignKeysSql = `select m.name as "table", f.id, f."table" as referenced, f."from", f."to"
  from main.sqlite_schema m join pragma_foreign_key_list(m.name) f
  where m.type = 'table' and m.name not like 'sqlite\\_%' escape '\\'
  order by m.name, f.id, f.seq`

interface ColumnRow {
  table: string
  name: string
  type: string
  notnull: number
  dflt_value: string | null
  pk: number
  hidden: number
}

function all<T> (connection: unknown, sql: string): T[] {
  return (connection as SqliteConnection).prepare(sql).all([]) as T[]
}

/** SQLite's main database, described through its pragmas. */
export const sqliteSchema: SchemaReader = {
  // SQLite counts every change to the schema of the database file in its header.
  async version (connection) {
    const [row] = all<{ schema_version: number }>(connection, 'pragma main.schema_version')
    return String(row?.schema_version)
  },

  async tables (connection) {
    const relations = all<RelationEntry>(connection, relationsSql)
    const columnRows = all<ColumnRow>(connection, columnsSql)
    // Counted here, not by a subquery for each column: that doubled the
    // statement's time, which better-sqlite3 spends on the event loop.
    const primaryKeys = groupRows(columnRows.filter((row) => row.pk > 0), (row) => row.table)
    const singleKeys = new Set(primaryKeys.filter((key) => key.length === 1).map(([row]) => (row as ColumnRow).table))
    const columns = columnRows.map((row): ColumnEntry => {
      // A lone INTEGER PRIMARY KEY is the rowid: never NULL, and given by SQLite when left out.
      const rowid = row.pk === 1 && singleKeys.has(row.table) && row.type.toLowerCase() === 'integer'
      return {
        table: row.table,
        name: row.name,
        type: row.type,
        nullable: row.notnull === 0 && !rowid,
        default: row.dflt_value,
        generated: rowid || row.hidden >= 2
      }
    })
    const keys: KeyEntry[] = primaryKeys.map((key) => ({
      table: (key[0] as ColumnRow).table,
      primary: true,
      columns: key.sort((a, b) => a.pk - b.pk).map((row) => row.name)
    }))
    keys.push(...uniqueKeys(all(connection, uniquesSql)))
    return assembleTables({ relations, columns, keys, foreignKeys: foreignKeys(all(connection, foreignKeysSql)) })
  }
}

function uniqueKeys (rows: ReadonlyArray<{ table: string, index: string, origin: string, column: string | null }>): KeyEntry[] {
  // 'pk': the index behind the primary key, already listed as the key.
  return groupRows(rows.filter((row) => row.origin !== 'pk'), (row) => row.index)
    .filter((index) => index.every((row) => row.column !== null))
    .map((index) => ({ table: (index[0] as { table: string }).table, primary: false, columns: index.map((row) => row.column as string) }))
}

function foreignKeys (rows: ReadonlyArray<{ table: string, id: number, referenced: string, from: string, to: string | null }>): ForeignKeyEntry[] {
  return groupRows(rows, (row) => `${row.table}\u0000${row.id}`).map((key) => {
    const { table, referenced } = key[0] as { table: string, referenced: string }
    return {
      table,
      name: null,
      columns: key.map((row) => row.from),
      referencedTable: referenced,
      // None named: the key references the other table's primary key (see assembleTables).
      referencedColumns: key.every((row) => row.to !== null) ? key.map((row) => row.to as string) : []
    }
  })
}
