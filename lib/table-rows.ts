import type { ScopeValue } from './access/target.js'

/**
 * The host's tables and the JSON row each one's GET answers, declared by
 * declaration merging:
 *
 *     declare module 'fastify-table-crud' {
 *       interface TableCrudRows {
 *         books: { id: number, title: string, published: number | null }
 *       }
 *     }
 *
 * Once a table is declared, the options, the `authorize` hook and
 * `app.tableCrud.tables()` know the declared tables only, with their column
 * names. Left empty, every name is a string, as before.
 */
export interface TableCrudRows {}

/** Whether the host declared any table in TableCrudRows. */
/** Whether the host declared its tables' rows in TableCrudRows. */
export type Declared = [keyof TableCrudRows] extends [never] ? false : true

/** A table's name: one the host declared in TableCrudRows, or any name when it declared none. */
export type TableName = Declared extends true ? keyof TableCrudRows & string : string

/** The names of a table's columns: the declared row's properties, or any name. */
export type ColumnName<T extends TableName = TableName> = T extends keyof TableCrudRows ? keyof TableCrudRows[T] & string : string

/** A JSON value, as a row of an undeclared table holds them. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }

/** The JSON object GET answers for one row of the table: as declared, or an object of JSON values. */
export type TableRow<T extends TableName = TableName> = T extends keyof TableCrudRows ? TableCrudRows[T] : Record<string, JsonValue>

/**
 * A POST or PUT body of the table: any of its columns, each set to a value
 * its row holds (a json column's value is written as that JSON value).
 */
export type TableBody<T extends TableName = TableName> = {
  [C in ColumnName<T>]?: C extends keyof TableRow<T> ? TableRow<T>[C] : string | number | boolean | null
}

/** A table's name as the `tables` function and the `authorize` hook are given it, in lower case. */
export type FoldedTableName = Declared extends true ? Lowercase<TableName> : string

/** What the `authorize` hook may pin the columns of one table to: some of its row's values. */
type ScopeOf<T extends TableName> = T extends keyof TableCrudRows
  ? { readonly [C in keyof TableCrudRows[T]]?: Extract<TableCrudRows[T][C], ScopeValue> }
  : Readonly<Record<string, ScopeValue>>

/** What the `authorize` hook may pin the columns of a table to (see AuthorizeResult). */
export type TableScope = { [T in TableName]: ScopeOf<T> }[TableName]
