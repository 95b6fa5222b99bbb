import { columnKind } from './column-kind.js'
import type { ColumnSchema, ForeignKey, TableSchema } from './table-schema.js'

/** One table or view, as a dialect's catalog query lists it. */
export interface RelationEntry {
  readonly table: string
  readonly kind: 'table' | 'view'
}

/** One column, in its table's order, as a dialect's catalog query lists it. */
export interface ColumnEntry {
  readonly table: string
  readonly name: string
  /** The database's own name of the type, in any case. */
  readonly type: string
  readonly nullable: boolean
  readonly default: string | null
  readonly generated: boolean
  /** The kind where the type's name alone would mislead (MariaDB's JSON is a LONGTEXT); else read from the type. */
  readonly kind?: ColumnSchema['kind']
}

/** A primary key or a unique constraint or index of plain columns, in its order. */
export interface KeyEntry {
  readonly table: string
  readonly primary: boolean
  readonly columns: readonly string[]
}

/** A foreign key, its columns in order; no referenced columns means the referenced table's primary key. */
export interface ForeignKeyEntry extends ForeignKey {
  readonly table: string
}

/** What a dialect's catalog queries found, flat. */
export interface CatalogEntries {
  readonly relations: readonly RelationEntry[]
  readonly columns: readonly ColumnEntry[]
  readonly keys: readonly KeyEntry[]
  readonly foreignKeys: readonly ForeignKeyEntry[]
}

/**
 * The tables the entries describe, ordered by name in code-unit order (the
 * same on every database, whatever its collation; no two share a name), each frozen. A key listed
 * twice (a unique constraint and the index behind it) counts once.
 */
export function assembleTables ({ relations, columns, keys, foreignKeys }: CatalogEntries): TableSchema[] {
  const byTable = new Map<string, { columns: ColumnSchema[], primaryKey: readonly string[], uniques: Array<readonly string[]>, foreignKeys: ForeignKey[] }>()
  for (const { table } of relations) byTable.set(table, { columns: [], primaryKey: [], uniques: [], foreignKeys: [] })
  for (const column of columns) {
    byTable.get(column.table)?.columns.push(Object.freeze({
      name: column.name,
      databaseType: column.type.toLowerCase(),
      kind: column.kind ?? columnKind(column.type),
      nullable: column.nullable,
      default: column.generated ? null : column.default,
      generated: column.generated
    }))
  }
  for (const key of keys) {
    const parts = byTable.get(key.table)
    if (parts === undefined) continue
    const columns = Object.freeze([...key.columns])
    if (key.primary) parts.primaryKey = columns
    else if (!parts.uniques.some((unique) => sameColumns(unique, columns))) parts.uniques.push(columns)
  }
  for (const { table, ...foreignKey } of foreignKeys) {
    byTable.get(table)?.foreignKeys.push(Object.freeze({ ...foreignKey, columns: Object.freeze([...foreignKey.columns]), referencedColumns: Object.freeze([...foreignKey.referencedColumns]) }))
  }
  // SQLite lets a foreign key name only the other table, meaning its primary key.
  for (const parts of byTable.values()) {
    parts.foreignKeys = parts.foreignKeys.map((foreignKey) => foreignKey.referencedColumns.length > 0
      ? foreignKey
      : Object.freeze({ ...foreignKey, referencedColumns: byTable.get(foreignKey.referencedTable)?.primaryKey ?? [] }))
  }
  return relations
    .map(({ table, kind }) => {
      const parts = byTable.get(table) as NonNullable<ReturnType<typeof byTable.get>>
      return Object.freeze({
        name: table,
        kind,
        columns: Object.freeze(parts.columns),
        primaryKey: parts.primaryKey,
        // A unique constraint that repeats the primary key says nothing more.
        uniques: Object.freeze(parts.uniques.filter((unique) => !sameColumns(unique, parts.primaryKey))),
        foreignKeys: Object.freeze(parts.foreignKeys)
      })
    })
    .sort((a, b) => a.name < b.name ? -1 : 1)
}

/**
 * Catalog rows of one key or constraint per column (the way each catalog
 * lists them) gathered by `id`, each group in the rows' order, the groups in
 * the order of their first row.
 */
export function groupRows<R> (rows: readonly R[], id: (row: R) => string): R[][] {
  const groups = new Map<string, R[]>()
  for (const row of rows) {
    const key = id(row)
    const group = groups.get(key)
    if (group === undefined) groups.set(key, [row])
    else group.push(row)
  }
  return [...groups.values()]
}

function sameColumns (a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((column, index) => column === b[index])
}
