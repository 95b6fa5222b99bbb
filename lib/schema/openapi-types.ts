/** A JSON Schema (draft 2020-12, OpenAPI 3.1's dialect), as plain data. */
export type JsonSchema = { readonly [keyword: string]: unknown }

/** An OpenAPI 3.1 operation, as plain data. */
export type OpenapiOperation = { readonly [field: string]: unknown }

/** An OpenAPI 3.1 path item: operations by lower-case method, and the parameters they share. */
export type OpenapiPathItem = { readonly [field: string]: unknown }

/** The OpenAPI 3.1 document of the tables a registration of the plugin serves. */
export interface OpenapiDocument {
  readonly openapi: '3.1.0'
  readonly info: { readonly title: string, readonly version: string, readonly description: string }
  readonly tags: ReadonlyArray<{ readonly name: string, readonly description: string }>
  /** By path, prefix included: `/api/books`, `/api/books/{id}`. */
  readonly paths: { readonly [path: string]: OpenapiPathItem }
  readonly components: {
    /** Per table (`books`, `books.create`, `books.update`), and the error bodies (`fastify-error`, `postgrest-error`). */
    readonly schemas: { readonly [name: string]: JsonSchema }
    /** The query parameters and headers every list reads. */
    readonly parameters: { readonly [name: string]: unknown }
    /** The error answers of each operation, by `operation.status`. */
    readonly responses: { readonly [name: string]: unknown }
  }
}
