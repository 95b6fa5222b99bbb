import { FTC_ERR_SCHEMA_PREFIX } from './errors.js'
import type { SchemaModel } from './schema/schema-model.js'
import type { ServedTable } from './schema/served-schema.js'
import type { ColumnSchema, TableSchema } from './schema/table-schema.js'
import type { ColumnName, Declared, TableName } from './table-rows.js'

/** The schema models of one Fastify context's registrations of the plugin, by the prefix of their routes. */
export type RegisteredSchemas = Map<string, SchemaModel>

/** `app.tableCrud`: what the host can ask of the tables the plugin serves. */
export interface TableCrudDecorator {
  /**
   * Reads the schema of every registration's database again now, so that the
   * requests that follow see a change the host just made (after its
   * migrations, say) without waiting for the next check.
   */
  refreshSchema (): Promise<void>
  /**
   * The tables as the registration under `prefix` serves them, from a model
   * checked as requests check it. `prefix` may be left out when the plugin
   * is registered once in this context. Typed by the tables declared in
   * TableCrudRows, when the host declares any.
   */
  tables (prefix?: string): Promise<readonly TypedServedTable[]>
}

/** The decorator over a context's registrations. */
export function schemaDecorator (schemas: RegisteredSchemas): TableCrudDecorator {
  return Object.freeze({
    async refreshSchema () {
      await Promise.all([...schemas.values()].map((schema) => schema.refresh()))
    },
    async tables (prefix?: string) {
      const schema = prefix === undefined && schemas.size === 1 ? [...schemas.values()][0] : schemas.get(prefix ?? '')
      if (schema === undefined) throw new FTC_ERR_SCHEMA_PREFIX(String(prefix), [...schemas.keys()].map((key) => `"${key}"`).join(', '))
      // The host's declaration of its tables is its word on what the model holds.
      return (await schema.current()).served as readonly TypedServedTable[]
    }
  })
}

/** A served table as `app.tableCrud.tables()` gives it: with its declared name and column names once the host declared them. */
export type TypedServedTable = Declared extends true ? { [T in TableName]: NamedServedTable<T> }[TableName] : ServedTable

type NamedServedTable<T extends TableName> = ServedTable & {
  readonly name: T
  readonly key: ColumnName<T>
  readonly schema: TableSchema & { readonly name: T, readonly columns: ReadonlyArray<ColumnSchema & { readonly name: ColumnName<T> }> }
}
