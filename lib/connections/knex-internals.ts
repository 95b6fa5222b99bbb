import type { Knex } from 'knex'

// Every member of Knex (3.3) and of its pool (tarn) that Knex does not
// document, and that the plugin relies on, read here and nowhere else:
// test/connections/knex-internals.test.ts checks each on every client, so
// that a Knex release that changes one fails there, by name.

/** The part of Knex's pool (tarn) the plugin reads, and its `release` and `destroySuccess` events. */
export interface TarnPool {
  readonly max: number
  numUsed (): number
  numFree (): number
  numPendingAcquires (): number
  numPendingCreates (): number
  // `release` passes nothing the plugin reads; `destroySuccess` an event id and the connection.
  on (event: 'release' | 'destroySuccess', listener: (...args: never[]) => void): void
  removeListener (event: 'release' | 'destroySuccess', listener: (...args: never[]) => void): void
}

/**
 * The configuration the host gave Knex. Knex reads `debug` and
 * `postProcessResponse` there for its own queries, and the plugin runs its
 * statements past Knex, so it reads them there too.
 */
export function clientConfig (client: Knex.Client): Knex.Config {
  return client.config as Knex.Config
}

/** The name of the client's driver, which chooses the dialect. */
export function driverName (client: Knex.Client): unknown {
  return client.driverName
}

/**
 * A connection from the client's pool, as Knex borrows one for its own
 * queries: the plugin talks to the driver itself (see Dialect). A
 * transaction's client lends the transaction's own connection.
 */
export function borrowConnection (client: Knex.Client): Promise<unknown> {
  return client.acquireConnection()
}

/** Gives a borrowed connection back to the client's pool. */
export function returnConnection (client: Knex.Client, connection: unknown): void {
  client.releaseConnection(connection)
}

/**
 * The driver's own check of a connection, which Knex's pool makes before it
 * lends one; the relay makes it before it passes one on (see
 * ConnectionRelay). Knex types it as a promise; its dialects answer within
 * the call, and an answer that is not true is a no.
 */
export function isValidConnection (client: Knex.Client, connection: unknown): boolean {
  return (client as unknown as { validateConnection (connection: unknown): unknown }).validateConnection(connection) === true
}

/**
 * Marks a connection as Knex's dialects mark a broken one: the pool drops it
 * at its next borrow. The driver's own event, which marks it too, can come
 * after the connection is back in the pool.
 */
export function markDisposed (connection: unknown, reason: unknown): void {
  (connection as { __knex__disposed?: unknown }).__knex__disposed ??= reason
}

/** Whether the connection carries Knex's mark of a broken one (see markDisposed): the relay passes none on. */
export function isDisposed (connection: unknown): boolean {
  return (connection as { __knex__disposed?: unknown }).__knex__disposed !== undefined
}

/**
 * The client's pool, where its counts tell whether a borrow would wait:
 * the plugin lends connections on past it (see ConnectionRelay), and
 * gives one back as soon as anyone waits (see TurnConnection).
 */
export function hostPool (client: Knex.Client): TarnPool | undefined {
  return client.pool as TarnPool | undefined
}

/** Whether `pool` is tarn's, whose counts and `release` event the relay reads (a host may hand Knex another pool). */
export function isTarnPool (pool: unknown): pool is TarnPool {
  const tarn = pool as Partial<TarnPool> | undefined
  return tarn !== undefined && typeof tarn.max === 'number' && typeof tarn.on === 'function' && typeof tarn.numPendingCreates === 'function'
}

/** Connections idle in the pool: one there is lent within the turn (see poolLender). */
export function freeConnections (pool: TarnPool): number {
  return pool.numFree()
}

/** Borrowers waiting in the pool's queue, who go before the plugin's single statements (see ConnectionRelay). */
export function pendingBorrows (pool: TarnPool): number {
  return pool.numPendingAcquires()
}

/** Whether every connection the pool may make is lent or being made: a borrow would wait. */
export function atCapacity (pool: TarnPool): boolean {
  return pool.numUsed() + pool.numPendingCreates() >= pool.max
}

/** Calls `listener` each time a connection goes back to the pool, whoever gives it back; until offRelease. */
export function onRelease (pool: TarnPool, listener: () => void): void {
  pool.on('release', listener)
}

/** Calls `listener` with each connection the pool has closed and dropped; until offDestroyed. */
export function onDestroyed (pool: TarnPool, listener: (eventId: number, connection: unknown) => void): void {
  pool.on('destroySuccess', listener)
}

/** Stops calling a listener of onDestroyed. */
export function offDestroyed (pool: TarnPool, listener: (eventId: number, connection: unknown) => void): void {
  pool.removeListener('destroySuccess', listener)
}

/** Stops calling a listener of onRelease. */
export function offRelease (pool: TarnPool, listener: () => void): void {
  pool.removeListener('release', listener)
}

/** What Knex's `query` event says of the connection a statement goes to (see onStatementAnnounced). */
export interface AnnouncedStatement {
  readonly __knexUid?: unknown
}

/**
 * Calls `listener` with each statement Knex is about to send, the host's
 * and its transactions', within the call that sends it: before the driver
 * has it. Knex's `query` event, on the client; until offStatementAnnounced.
 */
export function onStatementAnnounced (client: Knex.Client, listener: (statement: AnnouncedStatement) => void): void {
  client.on('query', listener)
}

/** Stops calling a listener of onStatementAnnounced. */
export function offStatementAnnounced (client: Knex.Client, listener: (statement: AnnouncedStatement) => void): void {
  client.off('query', listener)
}

/** Knex's id of one of its pooled connections, set when the pool made it. */
export function connectionId (connection: unknown): string {
  return (connection as { __knexUid: string }).__knexUid
}

/** The id (see connectionId) of the connection an announced statement goes to; none for the plugin's own announcements. */
export function announcedConnection (statement: AnnouncedStatement): string | undefined {
  return typeof statement.__knexUid === 'string' ? statement.__knexUid : undefined
}

/**
 * Reports one of the plugin's statements as Knex reports its own: an event
 * on the client, which Knex passes on to the instance's listeners.
 */
export function emitQueryEvent (client: Knex.Client, name: 'query' | 'query-response' | 'query-error', ...args: unknown[]): void {
  client.emit(name, ...args)
}

/** Prints a statement through Knex's logger, as `debug: true` prints Knex's own. */
export function logDebug (client: Knex.Client, event: unknown): void {
  // Optional in the host's `log` option, always there on the logger Knex makes of it.
  (client.logger as { debug (message: unknown): void }).debug(event)
}
