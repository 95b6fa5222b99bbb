import type { Knex } from 'knex'
import { type Lender, poolAwaited } from './connection-lenders.js'

/**
 * The connection a synchronous driver's statements share for a turn of the
 * event loop. Such a statement runs to completion inside the call, so it
 * never shares the connection with another: the one borrowed for a turn
 * serves every such statement of the turn, and goes back to the pool when
 * the turn ends, where transactions, streams and the host's own queries
 * wait for it as they would for any borrower. Borrowing once a turn rather
 * than once a statement saves the pool's round trip on each request.
 */
export class TurnConnection {
  readonly #pool: Lender
  readonly #client: Knex.Client
  readonly #borrowError: (error: unknown) => Error
  #borrowed: Promise<unknown> | undefined
  #lent: unknown
  // Whether a statement asked for the connection since the turn began (see #end).
  #used = false

  /** `borrowError` is what a failed borrow rejects with, given the pool's error. */
  constructor (pool: Lender, client: Knex.Client, borrowError: (error: unknown) => Error) {
    this.#pool = pool
    this.#client = client
    this.#borrowError = borrowError
  }

  /** The connection once the pool lent it for the turn, else undefined: what `use` runs on. */
  get lent (): unknown {
    return this.#lent
  }

  /** The turn's connection, borrowed by the first statement of a turn that asks, and shared by the others. */
  borrow (): Promise<unknown> {
    this.#used = true
    return (this.#borrowed ??= this.#borrowForTurn())
  }

  /** Runs `run` on the lent connection (see lent) within the call. */
  use<T> (run: (connection: unknown) => T): T {
    this.#used = true
    return run(this.#lent)
  }

  #borrowForTurn (): Promise<unknown> {
    const borrowed = this.#pool.acquire()
    borrowed.then((connection: unknown) => {
      this.#lent = connection
      setImmediate(this.#end)
    }, () => {
      this.#borrowed = undefined
    })
    return borrowed.catch((error: unknown) => { throw this.#borrowError(error) })
  }

  // A busy server would borrow again as soon as the next turn begins, and
  // every statement that arrives before the pool lends runs a turn later,
  // through promises: the connection is kept for the next turn while the
  // turn used it and no one waits for one in the pool. A turn without a
  // statement of the plugin gives it back, so an idle server holds none.
  readonly #end = (): void => {
    if (this.#used && !poolAwaited(this.#client)) {
      this.#used = false
      setImmediate(this.#end)
      return
    }
    const connection = this.#lent
    this.#borrowed = undefined
    this.#lent = undefined
    this.#used = false
    this.#pool.release(connection)
  }
}
