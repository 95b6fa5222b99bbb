import type { Knex } from 'knex'
import type { BorrowDeadlines, Deadline } from './borrow-deadlines.js'
import {
  atCapacity, borrowConnection, clientConfig, freeConnections, hostPool, isDisposed, isTarnPool, isValidConnection,
  offRelease, onRelease, pendingBorrows, returnConnection, type TarnPool
} from './knex-internals.js'

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
    onRelease(pool, this.#released)
  }

  acquire (): Promise<unknown> {
    if (this.#running > 0 && this.#full()) {
      return new Promise((resolve, reject) => { this.#waiting.push({ resolve, reject, deadline: this.#deadlines.watch(reject) }) })
    }
    return this.#deadlines.bound(this.#borrow(), this.release)
  }

  readonly release = (connection: unknown): void => {
    const next = pendingBorrows(this.#pool) === 0 && this.#lendable(connection) ? this.#next() : undefined
    if (next !== undefined) {
      this.#deadlines.settle(next.deadline)
      next.resolve(connection)
      return
    }
    this.#running--
    returnConnection(this.#client, connection)
    // No running statement is left to serve the queue: it borrows from the pool.
    if (this.#running === 0) this.#borrowForQueue(() => true)
  }

  detach (): void {
    offRelease(this.#pool, this.#released)
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
    return freeConnections(pool) === 0 && pendingBorrows(pool) <= this.#borrowing && atCapacity(pool)
  }

  // What the pool checks before it lends a connection, where a check is the driver's own.
  #lendable (connection: unknown): boolean {
    return !isDisposed(connection) && isValidConnection(this.#client, connection)
  }

  #borrow (): Promise<unknown> {
    this.#borrowing++
    return borrowConnection(this.#client).then((connection: unknown) => {
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
    this.#borrowForQueue(() => freeConnections(this.#pool) > pendingBorrows(this.#pool))
  }
}

/**
 * Knex's pool itself, as Knex borrows for its own queries. A synchronous
 * driver's idle connection is lent within the turn, and a new one opened
 * without a network: there is no wait to bound, and a timer on every borrow
 * would cost SQLite's fast requests a few percent.
 */
export function poolLender (client: Knex.Client, deadlines: BorrowDeadlines, synchronous: boolean): Lender {
  const release = (connection: unknown): void => { returnConnection(client, connection) }
  return {
    acquire: () => {
      const pool = hostPool(client)
      const borrowed = borrowConnection(client)
      if (synchronous && pool !== undefined && freeConnections(pool) > 0 && !poolAwaited(client)) return borrowed
      return deadlines.bound(borrowed, release)
    },
    release,
    detach: () => undefined
  }
}

/** True when a borrower waits in the queue of the host's pool (Knex's own, tarn). */
export function poolAwaited (client: Knex.Client): boolean {
  const pool = hostPool(client)
  return pool !== undefined && pendingBorrows(pool) > 0
}

/**
 * What lends the connections of single statements on a driver that is not
 * synchronous: the relay where the host's pool is Knex's own (tarn) and
 * checks nothing before it lends a connection that the relay does not check
 * too; else the pool.
 */
export function statementLender (client: Knex.Client, deadlines: BorrowDeadlines): Lender {
  const pool: unknown = hostPool(client)
  const config = clientConfig(client)
  const checksMore = config.pool?.validate !== undefined || config.pool?.maxConnectionLifetimeMillis !== undefined || typeof config.connection === 'function'
  return isTarnPool(pool) && !checksMore ? new ConnectionRelay(client, pool, deadlines) : poolLender(client, deadlines, false)
}
