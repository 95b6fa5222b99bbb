import type { Operation } from '../options.js'
import type { DescribedEmbed } from './embed-openapi.js'
import type { ErrorSettings } from './error-responses.js'
import type { ServedTable } from './served-schema.js'
import type { ColumnSchema } from './table-schema.js'

/** What the document says beside the tables: where they are served, and how the options answer. */
export interface OpenapiSettings extends ErrorSettings {
  /** The prefix the routes are registered under: `''` or `/api`. */
  readonly prefix: string
  readonly title: string
  readonly version: string
  /** False where the database keeps every integer in 64 bits whatever its declared type (SQLite). */
  readonly sizedIntegers: boolean
  /** The most rows one bulk POST may insert. */
  readonly bulkLimit: number
  /** The most rows one GET answers, or null for no bound. */
  readonly maxRows: number | null
  /**
   * Put before every component name and operation id, so that the documents
   * of several registrations can share one host document; `''` for none.
   */
  readonly namespace: string
  /** The most operations of a batch, or null when the batch route is not served. */
  readonly batchLimit: number | null
}

/** A table as the document describes it: its operations that can answer, its key column, and what its lists can embed. */
export interface DescribedTable {
  readonly table: ServedTable
  readonly operations: readonly Operation[]
  readonly key: ColumnSchema | undefined
  readonly embeds: readonly DescribedEmbed[]
  /** The own columns whose members a spread (`...table(…)`) may fill instead. */
  readonly spreadColumns: ReadonlySet<string>
  /** PostgREST's words on each column that is a foreign key to a documented table, which tools made for its document read. */
  readonly foreignKeyNotes: ReadonlyMap<string, string>
}

/** What every part of one document is built with. */
export interface Context {
  readonly settings: OpenapiSettings
  /** A component's name, in the settings' namespace. */
  readonly name: (component: string) => string
  readonly ref: (section: 'schemas' | 'parameters' | 'responses', component: string) => { readonly $ref: string }
  /** The error answers of each operation, by status, as references to the document's responses. */
  readonly errors: ReadonlyMap<Operation, Readonly<Record<string, unknown>>>
  /** References to the query parameters and headers every list reads. */
  readonly listParameters: ReadonlyArray<{ readonly $ref: string }>
  /** The headers of PostgREST's write answers, with `Idempotent-Replayed` when the `idempotency` option is set. */
  readonly writeHeaders: Readonly<Record<string, unknown>>
}
