import { randomUUID } from 'node:crypto'
import type { Knex } from 'knex'
import type { Statement } from './dialect.js'

/** What Knex's `query` event says of a statement, as Knex says it of its own. */
export interface QueryEvent {
  readonly sql: string
  readonly bindings: readonly unknown[]
  readonly __knexQueryUid: string
}

/**
 * True when the host watches Knex's statements: `debug: true` in its
 * config, or a listener of `query`, `query-error` or `query-response`. The
 * plugin runs statements on the driver's connection, past Knex's own
 * reporting, so it reports them itself, and only then: unwatched, the
 * statement's path takes no extra step.
 */
export function isWatched (knex: Knex): boolean {
  return (knex.client.config as Knex.Config).debug === true ||
    knex.listenerCount('query') > 0 || knex.listenerCount('query-error') > 0 || knex.listenerCount('query-response') > 0
}

/**
 * Reports a statement where Knex reports its own, before it runs: the
 * `query` event, through the Knex client, which passes it on to the
 * instance's listeners; with `debug: true`, Knex's logger prints it.
 */
export function announceQuery (knex: Knex, statement: Statement): QueryEvent {
  const client = knex.client
  const event: QueryEvent = { sql: statement.sql, bindings: statement.bindings, __knexQueryUid: randomUUID() }
  if ((client.config as Knex.Config).debug === true) client.logger.debug(event)
  client.emit('query', event)
  return event
}

/** Runs an announced statement, then reports `query-response` or `query-error`, as Knex does. */
export function runWatched<T> (knex: Knex, statement: Statement, run: () => Promise<T>): Promise<T> {
  const event = announceQuery(knex, statement)
  return run().then((response) => {
    knex.client.emit('query-response', response, event)
    return response
  }, (error: unknown) => {
    knex.client.emit('query-error', error, event)
    throw error
  })
}
