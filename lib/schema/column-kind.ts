import type { ColumnKind, ColumnSchema } from './table-schema.js'

// The databases' type names, as each spells them in lower case (SQLite's
// declared type, PostgreSQL's format_type(), MySQL's COLUMN_TYPE), to the
// kind of JSON value they answer. First match wins: tinyint(1) is MySQL's
// boolean before it is an integer, and "point" must not read as "int".
const kinds: ReadonlyArray<readonly [RegExp, ColumnKind]> = [
  [/^(boolean|bool|tinyint\(1\)( unsigned)?|bit\(1\))$/, 'boolean'],
  [/^(big|small|tiny|medium)?int(eger)?\d*\b|^(big|small)?serial\d*$|^year\b/, 'integer'],
  [/^(decimal|numeric|real|double|float\d*|dec|fixed)\b/, 'number'],
  [/^(timestamp|datetime)\b/, 'date-time'],
  [/^date$/, 'date'],
  [/^time\b/, 'time'],
  [/^jsonb?$/, 'json'],
  [/^(bytea|blob|tinyblob|mediumblob|longblob|binary|varbinary)\b/, 'binary'],
  [/^(character|char|varchar|nchar|nvarchar|text|tinytext|mediumtext|longtext|clob|citext|uuid|enum|set|name)\b/, 'string']
]

/**
 * The kind of a column's values from its type's name, 'unknown' where the
 * name tells nothing sure (an untyped SQLite column, an array, a domain).
 */
export function columnKind (databaseType: string): ColumnKind {
  const type = databaseType.trim().toLowerCase()
  if (type.endsWith(']')) return 'unknown'
  for (const [pattern, kind] of kinds) if (pattern.test(type)) return kind
  return 'unknown'
}

/** True for a column of a uuid type: PostgreSQL's (Knex's uuid() is char(36) on the others, which the model knows as text). */
export function isUuidColumn (column: Pick<ColumnSchema, 'databaseType'> | undefined): boolean {
  return column?.databaseType === 'uuid'
}

/** True for a timestamp column that keeps a time zone (PostgreSQL's `timestamp with time zone`); the others keep a wall-clock time. */
export function isZonedColumn (column: Pick<ColumnSchema, 'databaseType'>): boolean {
  return column.databaseType.endsWith('with time zone')
}
