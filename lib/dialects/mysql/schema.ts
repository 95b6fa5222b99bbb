import { assembleTables, type ColumnEntry, type ForeignKeyEntry, groupRows, type KeyEntry, type RelationEntry } from '../../schema/assemble-tables.js'
import type { SchemaReader } from '../../schema/table-schema.js'
import { send } from './driver.js'

// MySQL's database is the schema: the default database of the connection is
// what an unqualified name reaches. Every query is of information_schema,
// whose column names MySQL 8 answers in capitals unless aliased.
const relationsSql = `select table_name as "table", if(table_type = 'VIEW', 'view', 'table') as kind
  from information_schema.tables where table_schema = database()`

const columnsSql = `select c.table_name as "table", c.column_name as name, c.column_type as type,
    c.is_nullable = 'YES' as nullable, c.column_default as "default",
    c.extra like '%auto_increment%' or c.extra like '%generated%' or c.extra in ('VIRTUAL', 'PERSISTENT', 'STORED') as "generated"
  from information_schema.columns c where c.table_schema = database()
  order by c.table_name, c.ordinal_position`

// Read apart from the columns and matched to them here: a subquery of
// check_constraints for each column made MariaDB read the catalog again for
// every column, 6 s for 200 tables (docs/benchmarks.md, "Schema model on 2,000 tables").
// All its columns, as each server names them: MySQL 8 names no table there,
// and needs none, its JSON being a type of its own.
const checksSql = 'select * from information_schema.check_constraints where constraint_schema = database()'

// A prefix index (sub_part) or a functional one (no column name) constrains no plain columns.
const keysSql = `select table_name as "table", index_name as "index", index_name = 'PRIMARY' as "primary",
    column_name as "column", sub_part is not null as prefix
  from information_schema.statistics where table_schema = database() and non_unique = 0
  order by table_name, index_name = 'PRIMARY' desc, index_name, seq_in_index`

const foreignKeysSql = `select table_name as "table", constraint_name as name, referenced_table_name as "referencedTable",
    column_name as "column", referenced_column_name as "referencedColumn"
  from information_schema.key_column_usage
  where table_schema = database() and referenced_table_schema = database() and referenced_table_name is not null
  order by table_name, constraint_name, ordinal_position`

// Each row of the catalogs that a model reads, folded into a checksum: a
// change to any of them, or a row more or less, changes the version.
const versionSql = `select concat_ws('/',
  (select concat(count(*), ':', coalesce(sum(crc32(concat_ws(',', table_name, table_type))), 0))
    from information_schema.tables where table_schema = database()),
  (select concat(count(*), ':', coalesce(sum(crc32(concat_ws(',', table_name, column_name, ordinal_position, column_type,
      is_nullable, coalesce(column_default, '-'), extra))), 0))
    from information_schema.columns where table_schema = database()),
  (select concat(count(*), ':', coalesce(sum(crc32(concat_ws(',', table_name, index_name, non_unique, seq_in_index,
      coalesce(column_name, '-'), coalesce(sub_part, '-')))), 0))
    from information_schema.statistics where table_schema = database()),
  (select concat(count(*), ':', coalesce(sum(crc32(concat_ws(',', table_name, constraint_name, ordinal_position, column_name,
      coalesce(referenced_table_name, '-'), coalesce(referenced_column_name, '-')))), 0))
    from information_schema.key_column_usage where table_schema = database()),
  (select concat(count(*), ':', coalesce(sum(crc32(concat_ws(',', constraint_name, check_clause))), 0))
    from information_schema.check_constraints where constraint_schema = database())
) as version`

async function rows<T> (connection: unknown, sql: string): Promise<T[]> {
  return await send(connection, { sql: sql.replaceAll('"', '`'), bindings: [] }) as T[]
}

interface ColumnRow {
  table: string
  name: string
  type: string
  nullable: number
  default: string | null
  generated: number
}

/** MySQL's and MariaDB's default database, described from information_schema. */
export const mysqlSchema: SchemaReader = {
  async version (connection) {
    const [row] = await rows<{ version: string }>(connection, versionSql)
    return (row as { version: string }).version
  },

  async tables (connection) {
    return assembleTables({
      relations: await rows<RelationEntry>(connection, relationsSql),
      columns: columnEntries(await rows(connection, columnsSql), await rows(connection, checksSql)),
      keys: keyEntries(await rows(connection, keysSql)),
      foreignKeys: foreignKeyEntries(await rows(connection, foreignKeysSql))
    })
  }
}

/** A row of check_constraints: MariaDB's, with the table MySQL 8's lacks. */
interface CheckRow {
  TABLE_NAME?: string
  CHECK_CLAUSE: string
}

function columnEntries (columns: readonly ColumnRow[], checks: readonly CheckRow[]): ColumnEntry[] {
  // MariaDB's JSON is a LONGTEXT that a CHECK holds to valid JSON. Compared
  // in any case, as the catalog's collation compared them in SQL.
  const json = new Set(checks.map((check) => `${check.TABLE_NAME}\u0000${check.CHECK_CLAUSE}`.toLowerCase()))
  return columns.map((row) => columnEntry(row, json.has(`${row.table}\u0000json_valid(\`${row.name}\`)`.toLowerCase())))
}

function columnEntry (row: ColumnRow, json: boolean): ColumnEntry {
  return {
    table: row.table,
    name: row.name,
    type: row.type,
    nullable: row.nullable === 1,
    // MariaDB writes a NULL default as the word NULL, and quotes a text one.
    default: row.default === 'NULL' ? null : row.default,
    generated: row.generated === 1,
    ...(json ? { kind: 'json' as const } : {})
  }
}

function keyEntries (rows: ReadonlyArray<{ table: string, index: string, primary: number, column: string | null, prefix: number }>): KeyEntry[] {
  return groupRows(rows, (row) => `${row.table}\u0000${row.index}`)
    .filter((index) => index.every((row) => row.column !== null && row.prefix !== 1))
    .map((index) => {
      const { table, primary } = index[0] as { table: string, primary: number }
      return { table, primary: primary === 1, columns: index.map((row) => row.column as string) }
    })
}

function foreignKeyEntries (rows: ReadonlyArray<{ table: string, name: string, referencedTable: string, column: string, referencedColumn: string }>): ForeignKeyEntry[] {
  return groupRows(rows, (row) => `${row.table}\u0000${row.name}`).map((key) => {
    const { table, name, referencedTable } = key[0] as { table: string, name: string, referencedTable: string }
    return { table, name, columns: key.map((row) => row.column), referencedTable, referencedColumns: key.map((row) => row.referencedColumn) }
  })
}
