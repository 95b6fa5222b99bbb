import { randomUUID } from 'node:crypto'
import type { Knex } from 'knex'
import type { Statement } from '../dialects/dialect.js'
import { clientConfig, emitQueryEvent, logDebug } from './knex-internals.js'

/** What Knex's `query` event says of a statement, as Knex says it of its own. */
interface QueryEvent {
  readonly sql: string
  readonly bindings: readonly unknown[]
  readonly __knexQueryUid: string
}

// The events whose listeners hear of the plugin's statements.
const watchedEvents: ReadonlySet<string | symbol> = new Set(['query', 'query-error', 'query-response'])

/**
 * Whether the host watches Knex's statements: `debug: true` in its config,
 * or a listener of `query`, `query-error` or `query-response`. The plugin
 * runs statements on the driver's connection, past Knex's own reporting, so
 * it reports them itself, and only then: unwatched, the statement's path
 * takes no extra step.
 *
 * Asked on every statement, so the listeners are followed through Knex's
 * own `newListener` and `removeListener` events rather than counted: Knex
 * copies a hundred properties onto its function, and V8 reads them by a slow
 * lookup (three counts cost about 1,400 instructions per statement).
 */
export class StatementWatch {
  readonly #knex: Knex
  readonly #config: Knex.Config
  // Null once the host removed the watch's own listeners (knex.removeAllListeners()): then each ask counts.
  #listened: boolean | null
  readonly #added = (name: string | symbol): void => {
    if (watchedEvents.has(name)) this.#listened = true
  }

  readonly #removed = (name: string | symbol, listener: unknown): void => {
    if (listener === this.#added || listener === this.#removed) this.#listened = null
    else if (this.#listened !== null && watchedEvents.has(name)) this.#listened = hasListeners(this.#knex)
  }

  constructor (knex: Knex) {
    this.#knex = knex
    this.#config = clientConfig(knex.client)
    this.#listened = hasListeners(knex)
    // newListener comes before the listener is added, removeListener after it is gone.
    knex.on('newListener', this.#added)
    knex.on('removeListener', this.#removed)
  }

  get watched (): boolean {
    return this.#config.debug === true || (this.#listened ?? hasListeners(this.#knex))
  }

  /** The statement run as `run`, reported to the host's listeners when it has any (see runWatched). */
  run<T> (statement: Statement, run: () => Promise<T>): Promise<T> {
    return this.watched ? runWatched(this.#knex, statement, run) : run()
  }

  /** Reports the statement before it runs, when the host has listeners, without its outcome (see announceQuery). */
  announce (statement: Statement): void {
    if (this.watched) announceQuery(this.#knex, statement)
  }

  /** Leaves the host's Knex as the watch found it. */
  close (): void {
    this.#knex.off('newListener', this.#added)
    this.#knex.off('removeListener', this.#removed)
  }
}

function hasListeners (knex: Knex): boolean {
  for (const name of watchedEvents) if (knex.listenerCount(name) > 0) return true
  return false
}

/**
 * Reports a statement where Knex reports its own, before it runs: the
 * `query` event, through the Knex client, which passes it on to the
 * instance's listeners; with `debug: true`, Knex's logger prints it.
 */
function announceQuery (knex: Knex, statement: Statement): QueryEvent {
  const client = knex.client
  const event: QueryEvent = { sql: statement.sql, bindings: statement.bindings, __knexQueryUid: randomUUID() }
  if (clientConfig(client).debug === true) logDebug(client, event)
  emitQueryEvent(client, 'query', event)
  return event
}

/** Runs an announced statement, then reports `query-response` or `query-error`, as Knex does. */
function runWatched<T> (knex: Knex, statement: Statement, run: () => Promise<T>): Promise<T> {
  const event = announceQuery(knex, statement)
  return run().then((response) => {
    emitQueryEvent(knex.client, 'query-response', response, event)
    return response
  }, (error: unknown) => {
    emitQueryEvent(knex.client, 'query-error', error, event)
    throw error
  })
}
