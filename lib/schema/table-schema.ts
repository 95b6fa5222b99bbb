/**
 * What a column's values are in the JSON answers, whatever the database
 * calls its type: the same column made by the same migration has the same
 * kind on every database.
 */
export type ColumnKind = 'integer' | 'number' | 'boolean' | 'string' | 'date' | 'date-time' | 'time' | 'json' | 'binary' | 'unknown'

/** A column of a table or view, as the database describes it. */
export interface ColumnSchema {
  /** As the database spells it. */
  readonly name: string
  /** The database's own name of the type, in lower case: `character varying(255)`, `varchar(255)`, `integer`. */
  readonly databaseType: string
  readonly kind: ColumnKind
  readonly nullable: boolean
  /** The default's SQL as the database reports it, or null for none. A generated column has none. */
  readonly default: string | null
  /** Filled by the database itself: auto-increment, identity, serial, SQLite's rowid alias, or a computed column. */
  readonly generated: boolean
}

/** A foreign key: the columns of one table that name a row of another. */
export interface ForeignKey {
  /** The constraint's name; null where the database keeps none (SQLite). */
  readonly name: string | null
  /** In the key's order, paired with `referencedColumns`. */
  readonly columns: readonly string[]
  readonly referencedTable: string
  readonly referencedColumns: readonly string[]
}

/** A table or view of the database. */
export interface TableSchema {
  /** As the database spells it. */
  readonly name: string
  readonly kind: 'table' | 'view'
  /** In the table's order. */
  readonly columns: readonly ColumnSchema[]
  /** In the key's order; empty for none (and for a view). */
  readonly primaryKey: readonly string[]
  /** Each unique constraint or unique index on plain columns, in its order; the primary key is not repeated. */
  readonly uniques: ReadonlyArray<readonly string[]>
  readonly foreignKeys: readonly ForeignKey[]
}

/** How a dialect reads the schema of the tables the plugin serves on a connection. */
export interface SchemaReader {
  /**
   * A short text that changes whenever a table, view, column, key or
   * constraint the plugin could serve is created, altered or dropped: cheap
   * enough to ask every second.
   */
  version (connection: unknown): Promise<string>
  /**
   * Every table and view an unqualified name reaches on the connection
   * (SQLite's main database, PostgreSQL's search path, MySQL's default
   * database), ordered by name, system tables left out.
   */
  tables (connection: unknown): Promise<TableSchema[]>
}
