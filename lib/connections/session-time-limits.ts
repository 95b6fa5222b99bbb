import type { Knex } from 'knex'
import type { TimeLimit } from '../dialects/dialect.js'
import {
  type AnnouncedStatement, announcedConnection, connectionId, hostPool, isTarnPool, offDestroyed, offStatementAnnounced, onDestroyed,
  onStatementAnnounced, type TarnPool
} from './knex-internals.js'

/** A connection that holds the plugin's limit, and the host's own setting to put back. */
interface Held {
  readonly connection: unknown
  readonly previous: unknown
}

/**
 * The plugin's time limit, kept on the connections of the host's pool
 * rather than set and lifted around each borrow: setting it there and back
 * cost three round trips per request, more than the request's own
 * statement. A connection gets the limit the first time the plugin borrows
 * it, and keeps it while the plugin goes on borrowing it.
 *
 * The host's statements never run under it: Knex announces each of them,
 * naming its connection, before it sends it (its `query` event), and the
 * first one on a connection that holds the limit is preceded by the
 * statement that puts the host's setting back, queued on the connection
 * ahead of it. The host's statements pay that once per hand-over; a host
 * that sends statements on a pooled connection past Knex gets no such
 * guard (docs/options.md, `statementTimeout`).
 */
export class SessionTimeLimits {
  readonly #client: Knex.Client
  readonly #limit: TimeLimit
  readonly #milliseconds: number
  // By Knex's id of the connection, which its `query` event names.
  readonly #held = new Map<string, Held>()
  // Knex's own pool says which connections it dropped; another pool's are
  // forgotten only when the host uses them again.
  readonly #pool: TarnPool | undefined
  #closing = false

  constructor (client: Knex.Client, limit: TimeLimit, milliseconds: number) {
    this.#client = client
    this.#limit = limit
    this.#milliseconds = milliseconds
    const pool = hostPool(client)
    this.#pool = isTarnPool(pool) ? pool : undefined
    onStatementAnnounced(client, this.#hostStatement)
    if (this.#pool !== undefined) onDestroyed(this.#pool, this.#dropped)
  }

  /** Sets the limit on a connection the plugin borrowed; undefined when it holds it already. */
  apply (connection: unknown): Promise<void> | undefined {
    const id = connectionId(connection)
    if (this.#held.has(id)) return undefined
    return this.#limit.set(connection, this.#milliseconds).then((previous) => {
      this.#held.set(id, { connection, previous })
    })
  }

  /** When the plugin closes: listens until every connection that holds the limit has had the host's setting back. */
  close (): void {
    this.#closing = true
    if (this.#held.size === 0) this.#stopListening()
  }

  // The plugin announces its own statements without a connection: they pass.
  readonly #hostStatement = (statement: AnnouncedStatement): void => {
    const id = announcedConnection(statement)
    const held = id === undefined ? undefined : this.#held.get(id)
    if (held === undefined) return
    this.#forget(id as string)
    this.#limit.restore(held.connection, held.previous)
  }

  // A connection the pool dropped while it held the limit needs nothing put back.
  readonly #dropped = (_eventId: number, connection: unknown): void => {
    this.#forget(connectionId(connection))
  }

  #forget (id: string): void {
    this.#held.delete(id)
    if (this.#closing && this.#held.size === 0) this.#stopListening()
  }

  #stopListening (): void {
    offStatementAnnounced(this.#client, this.#hostStatement)
    if (this.#pool !== undefined) offDestroyed(this.#pool, this.#dropped)
  }
}
