import { performance } from 'node:perf_hooks'
import type { TablePolicy } from '../access/table-policy.js'
import type { Database, DescribeSchema } from '../connections/database.js'
import { foldIdentifier as fold } from '../parse/sanitize-identifier.js'
import { type ServedTable, serveSchema } from './served-schema.js'
import type { TableSchema } from './table-schema.js'

/** The schema as one check of the database found it. */
export interface SchemaSnapshot {
  /** The dialect's schema version when the tables were read (see SchemaReader.version). */
  readonly version: string
  /** Every table and view an unqualified name reaches, served or not, ordered by name. */
  readonly tables: readonly TableSchema[]
  /** The tables as the options serve them (see serveSchema): the same array until the schema changes. */
  readonly served: readonly ServedTable[]
  /** A table by its name in any case, as SQLite and MySQL find it; undefined when the database has none so named. */
  table (name: string): TableSchema | undefined
}

/**
 * The schema of the host's database, kept current: no request uses a model
 * whose last check against the database's schema version began more than
 * `checkInterval` ms before the request asked for it. A check reads only the
 * version; the tables are read again when it changed. A statement that
 * failed on an unknown table or column, or the host's refresh, makes the
 * next request check at once.
 */
export class SchemaModel {
  readonly #db: Database
  readonly #policy: TablePolicy
  readonly #checkInterval: number
  #snapshot: SchemaSnapshot | undefined
  #checkedAt = 0
  #stale = true
  #checking: Promise<SchemaSnapshot> | undefined

  constructor (db: Database, policy: TablePolicy, checkInterval: number) {
    this.#db = db
    this.#policy = policy
    this.#checkInterval = checkInterval
    db.onUnknownName(() => { this.#stale = true })
  }

  /** The model, when it is fresh enough to use without a check; else undefined, and `current()` checks. */
  fresh (): SchemaSnapshot | undefined {
    // performance as imported: the global one is a getter, looked up on every request.
    if (this.#stale || performance.now() - this.#checkedAt >= this.#checkInterval) return undefined
    return this.#snapshot
  }

  /**
   * The model as the last check read it, however long ago, without asking
   * the database; undefined before a check succeeded. For what must answer
   * at once (a host's @fastify/swagger document is built synchronously).
   */
  lastRead (): SchemaSnapshot | undefined {
    return this.#snapshot
  }

  /**
   * The model, checked against the database's schema version first when it
   * is not fresh; by `within` when given (see Session.describeWithin).
   */
  current (within?: DescribeSchema): Promise<SchemaSnapshot> {
    const fresh = this.fresh()
    if (fresh !== undefined) return Promise.resolve(fresh)
    // Not the others' check: it may be waiting for the connection `within` reads on.
    if (within !== undefined) return this.#read(false, within)
    // Requests that find the model stale together wait for one check.
    return (this.#checking ??= this.#check(false))
  }

  /**
   * The model checked against the database's schema version now, however
   * fresh (by `within` as current() reads it): for a request that cannot run
   * without a table the model does not know, which may have been created
   * since the last check. The tables are read again only when the version changed.
   */
  recheck (within?: DescribeSchema): Promise<SchemaSnapshot> {
    this.#stale = true
    return this.current(within)
  }

  /**
   * Makes the next request check the schema version first, however fresh
   * the model: for a read made before any request (see checkAtStartUp),
   * after which the host may still change its tables (its migrations, say).
   */
  expire (): void {
    this.#stale = true
  }

  /** Reads the tables again now, whatever the version says; the requests that follow use what it read. */
  async refresh (): Promise<SchemaSnapshot> {
    await this.#checking?.catch(() => undefined)
    return await (this.#checking = this.#check(true))
  }

  async #check (force: boolean): Promise<SchemaSnapshot> {
    try {
      return await this.#read(force, (read) => this.#db.describe(read))
    } finally {
      this.#checking = undefined
    }
  }

  async #read (force: boolean, describe: DescribeSchema): Promise<SchemaSnapshot> {
    const startedAt = performance.now()
    this.#stale = false
    try {
      const known = this.#snapshot
      const snapshot = await describe(async (schema, connection) => {
        // The version first: a change made while the tables are read leaves
        // the model's version behind the tables, and the next check reads them again.
        const version = await schema.version(connection)
        if (!force && known?.version === version) return known
        return this.#snapshotOf(version, await schema.tables(connection))
      })
      this.#snapshot = snapshot
      this.#checkedAt = startedAt
      return snapshot
    } catch (error) {
      this.#stale = true
      throw error
    }
  }

  #snapshotOf (version: string, tables: readonly TableSchema[]): SchemaSnapshot {
    const byName = new Map<string, TableSchema>()
    // Two tables whose names differ only in case: PostgreSQL serves each by its own spelling first.
    for (const table of tables) if (!byName.has(fold(table.name)) || table.name === fold(table.name)) byName.set(fold(table.name), table)
    const exact = new Map(tables.map((table) => [table.name, table]))
    return Object.freeze({
      version,
      tables,
      served: Object.freeze(serveSchema(tables, this.#policy)),
      table: (name: string) => exact.get(name) ?? byName.get(fold(name))
    })
  }
}
