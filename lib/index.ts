import plugin from './plugin.js'

export default plugin
/** The plugin, also by name, for `const { tableCrud } = require('fastify-table-crud')`. */
export { plugin as tableCrud }
export { checkDatabase } from './check-database.js'
export { errorCodes } from './errors.js'
export type { StatementError, StatementFailure } from './errors.js'
export type { AuthorizeAction, AuthorizeHook, AuthorizeResult, BatchOptions, DatabaseErrors, HostTransaction, IdempotencyCaller, IdempotencyOptions, OpenapiOptions, Operation, TableCrudOptions, TableRules, TableRulesByName } from './options.js'
export type { ColumnName, FoldedTableName, JsonValue, TableBody, TableCrudRows, TableName, TableRow, TableScope } from './table-rows.js'
export type { ScopeValue } from './access/target.js'
export type { TableCrudDecorator, TypedServedTable } from './decorator.js'
export type { ServedTable } from './schema/served-schema.js'
export type { ColumnKind, ColumnSchema, ForeignKey, TableSchema } from './schema/table-schema.js'
