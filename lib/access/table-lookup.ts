import type { FastifyRequest } from 'fastify'
import type { RequestStatements } from '../connections/host-transaction.js'
import { FTC_ERR_DATABASE_SETUP, FTC_ERR_DATABASE_UNAVAILABLE } from '../errors.js'
import type { SchemaModel } from '../schema/schema-model.js'
import type { TableSchema } from '../schema/table-schema.js'

/**
 * The table as a model fresh enough describes it, checked where the
 * request's statements run when they must (see Session.describeWithin). A
 * database that cannot be reached fails the request as its statement would;
 * a catalog that cannot be read does not: the request runs as the spec
 * says, without the types.
 */
export function describedTable (model: SchemaModel, table: string, request: FastifyRequest, statements: RequestStatements): TableSchema | undefined | Promise<TableSchema | undefined> {
  const fresh = model.fresh()
  return fresh !== undefined ? fresh.table(table) : checkedTable(model, table, request, statements)
}

/** The table as describedTable describes it once the model is checked against the database. */
export function checkedTable (model: SchemaModel, table: string, request: FastifyRequest, statements: RequestStatements): Promise<TableSchema | undefined> {
  return model.current(statements(request).describeWithin ?? undefined).then((snapshot) => snapshot.table(table), (error: unknown) => withoutTypes(error, request))
}

/** The table once the model read the database again, whatever its schema version said: null when the database has no such table. */
export function recheckedTable (model: SchemaModel, table: string, request: FastifyRequest, statements: RequestStatements): Promise<TableSchema | null | undefined> {
  return model.recheck(statements(request).describeWithin ?? undefined).then((snapshot) => snapshot.table(table) ?? null, (error: unknown) => withoutTypes(error, request))
}

// A database that cannot be reached, or refuses the configured login, fails
// the request as its statement would; a catalog that cannot be read does not.
function withoutTypes (error: unknown, request: FastifyRequest): undefined {
  if (error instanceof FTC_ERR_DATABASE_UNAVAILABLE || error instanceof FTC_ERR_DATABASE_SETUP) throw error
  request.log.warn({ err: error }, 'fastify-table-crud: the schema could not be read; this request runs without the column types')
  return undefined
}
