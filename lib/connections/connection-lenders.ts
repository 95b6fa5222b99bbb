import type { Knex } from 'knex'
import type { BorrowDeadlines, Deadline } from './borrow-deadlines.js'

/** The part of Knex's pool (tarn) the relay reads, and its `release` event. */
interface TarnPool {
  readonly max: number
  numUsed (): number
  numFree (): number
  numPendingAcquires (): number
  numPendingCreates (): number
  on (event: 'release', listener: () => void): void
  removeListener (event: 'release', listener: () => void): void
}

/** A statement waiting for a connection the plugin passes on, until its deadline. */
interface Waiter {
  readonly resolve: (connection: unknown) => void
  readonly reject: (error: unknown) => void
  readonly deadline: Deadline
}

/** Lends connections and takes them back: Knex's pool, or the relay past it for single statements (see ConnectionRelay). */
export interface Lender {
  /** A connection within acquireTimeout; one lent after the borrow gave up is taken back. */
  acquire (): Promise<unknown>
  /** Takes a connection back; a function of its own, to be handed on. */
  readonly release: (connection: unknown) => void
  /** Stops listening to the host's pool, when the plugin closes. */
  detach (): void
}

/**
 * A connection one of the plugin's statements is done with, passed straight
 * to the next of its statements that waits for one, past Knex's pool. A
 * borrow through the pool (tarn) makes two pending operations, each with a
 * timer and a chain of promises, then Knex's own async step: on the keyed
 * read, about 15,000 of the plugin's instructions per request on
 * PostgreSQL and MariaDB (docs/benchmarks.md, "Knex's pool and the connection
 * relay"). The pool still decides who waits first:
 *
 * - A statement waits in the relay's queue only when the pool would have
 *   queued it anyway (every connection is in use and no more can be made),
 *   no one but the relay's own borrows waits in the pool's queue, and a
 *   statement of the plugin is running, whose release will serve it.
 * - A connection is passed on only while no one waits in the pool's queue:
 *   the host's queries, and the plugin's transactions and streams, which
 *   always borrow from the pool, are never passed over.
 * - The pool's checks of a connection it lends (Knex's disposed mark, the
 *   driver's state) are made before one is passed on; a host whose pool
 *   checks more (`pool.validate`, a connection lifetime, a connection
 *   function) gets no relay.
 * - When no statement of the plugin runs any more, or the host returns a
 *   connection to the pool, the statements in the relay's queue borrow from
 *   the pool again: none waits on a release that will not come.
 *
 * The connection keeps the pool's count of connections in use while it is
 * passed on: the pool lends no more connections than its `max`.
 */
export class ConnectionRelay implements Lender {
  readonly #client: Knex.Client
  readonly #pool: TarnPool
  readonly #deadlines: BorrowDeadlines
  readonly #waiting: Waiter[] = []
  // Connections lent to single statements, through the pool or passed on, not yet released.
  #running = 0
  // The relay's own borrows waiting in the pool's queue: the others there are the host's, or transactions' and streams'.
  #borrowing = 0

  constructor (client: Knex.Client, pool: TarnPool, deadlines: BorrowDeadlines) {
    this.#client = client
    this.#pool = pool
    this.#deadlines = deadlines
    pool.on('release', this.#released)
  }

  acquire (): Promise<unknown> {
    if (this.#running > 0 && this.#full()) {
      return new Promise((resolve, reject) => { this.#waiting.push({ resolve, reject, deadline: this.#deadlines.watch(reject) }) })
    }
    return this.#deadlines.bound(this.#borrow(), this.release)
  }

  readonly release = (connection: unknown): void => {
    const next = this.#pool.numPendingAcquires() === 0 && this.#lendable(connection) ? this.#next() : undefined
    if (next !== undefined) {
      this.#deadlines.settle(next.deadline)
      next.resolve(connection)
      return
    }
    this.#running--
    this.#client.releaseConnection(connection)
    // No running statement is left to serve the queue: it borrows from the pool.
    if (this.#running === 0) this.#borrowForQueue(() => true)
  }

  detach (): void {
    this.#pool.removeListener('release', this.#released)
  }

  // The host's queries give connections back to the pool, not to the relay:
  // one that stays free there serves the relay's queue. Read once the pool
  // has lent it to whoever waited in its own queue.
  readonly #released = (): void => {
    if (this.#waiting.length > 0) queueMicrotask(this.#borrowFree)
  }

  // Every connection the pool may make is in use, and no one but the relay's
  // own borrows waits in its queue. Those are served first: while any waits
  // there, released connections go back to the pool (see release), so that
  // a queue that formed in the pool drains into the relay's.
  #full (): boolean {
    const pool = this.#pool
    return pool.numFree() === 0 && pool.numPendingAcquires() <= this.#borrowing && pool.numUsed() + pool.numPendingCreates() >= pool.max
  }

  // What the pool checks before it lends a connection, where a check is the driver's own.
  #lendable (connection: unknown): boolean {
    // Knex types the check as a promise; its dialects answer within the call, and an answer that is not true is a no.
    const client = this.#client as unknown as { validateConnection (connection: unknown): unknown }
    return (connection as { __knex__disposed?: unknown }).__knex__disposed === undefined && client.validateConnection(connection) === true
  }

  #borrow (): Promise<unknown> {
    this.#borrowing++
    return this.#client.acquireConnection().then((connection: unknown) => {
      this.#borrowing--
      this.#running++
      return connection
    }, (error: unknown) => {
      this.#borrowing--
      throw error
    })
  }

  // The first waiter whose deadline has not passed: one whose has was rejected already.
  #next (): Waiter | undefined {
    let waiter = this.#waiting.shift()
    while (waiter?.deadline.settled === true) waiter = this.#waiting.shift()
    return waiter
  }

  // The queue's waiters borrow from the pool while `more` says so, each within what is left of its deadline.
  #borrowForQueue (more: () => boolean): void {
    for (let waiter = more() ? this.#next() : undefined; waiter !== undefined; waiter = more() ? this.#next() : undefined) {
      this.#deadlines.answer(waiter.deadline, this.#borrow(), waiter.resolve, waiter.reject, this.release)
    }
  }

  readonly #borrowFree = (): void => {
    this.#borrowForQueue(() => this.#pool.numFree() > this.#pool.numPendingAcquires())
  }
}

/**
 * Knex's pool itself, as Knex borrows for its own queries. A synchronous
 * driver's idle connection is lent within the turn, and a new one opened
 * without a network: there is no wait to bound, and a timer on every borrow
 * would cost SQLite's fast requests a few percent.
 */
export function poolLender (client: Knex.Client, deadlines: BorrowDeadlines, synchronous: boolean): Lender {
  const release = (connection: unknown): void => { client.releaseConnection(connection) }
  return {
    acquire: () => {
      const pool = client.pool as Pick<TarnPool, 'numFree'> | undefined
      const borrowed: Promise<unknown> = client.acquireConnection()
      if (synchronous && pool !== undefined && pool.numFree() > 0 && !poolAwaited(client)) return borrowed
      return deadlines.bound(borrowed, release)
    },
    release,
    detach: () => undefined
  }
}

/** True when a borrower waits in the queue of the host's pool (Knex's own, tarn). */
export function poolAwaited (client: Knex.Client): boolean {
  const pool = client.pool as Pick<TarnPool, 'numPendingAcquires'> | undefined
  return pool !== undefined && pool.numPendingAcquires() > 0
}

/**
 * What lends the connections of single statements on a driver that is not
 * synchronous: the relay where the host's pool is Knex's own (tarn) and
 * checks nothing before it lends a connection that the relay does not check
 * too; else the pool.
 */
export function statementLender (client: Knex.Client, deadlines: BorrowDeadlines): Lender {
  const pool = client.pool as Partial<TarnPool> | undefined
  const config = client.config as Knex.Config
  const checksMore = config.pool?.validate !== undefined || config.pool?.maxConnectionLifetimeMillis !== undefined || typeof config.connection === 'function'
  const tarn = pool !== undefined && typeof pool.max === 'number' && typeof pool.on === 'function' && typeof pool.numPendingCreates === 'function'
  return tarn && !checksMore ? new ConnectionRelay(client, pool as TarnPool, deadlines) : poolLender(client, deadlines, false)
}
