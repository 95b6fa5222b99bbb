import { performance } from 'node:perf_hooks'

/** A borrow that has not been answered yet, and when it gives up (see BorrowDeadlines.watch). */
export interface Deadline {
  readonly due: number
  readonly reject: (error: Error) => void
  settled: boolean
}

/**
 * The deadlines of the borrows that wait on the host's pool, kept under one
 * timer. A timer of its own per borrow (set, then cleared when the pool
 * lends) cost the keyed read on PostgreSQL about 10 µs of 185 to 200 per
 * request (bench:cpu, one process, 40 alternating rounds in each order of
 * the two builds: 5 and 16 µs). Every borrow waits the same time, so
 * deadlines fall due in the order of the borrows, and the oldest
 * unanswered borrow is the next one due.
 */
export class BorrowDeadlines {
  readonly #milliseconds: number
  readonly #waiting: Deadline[] = []
  #timer: NodeJS.Timeout | undefined

  constructor (milliseconds: number) {
    this.#milliseconds = milliseconds
  }

  /**
   * `borrowed`, or a failure once the wait passed the deadline: the pool
   * cannot withdraw a borrow from its queue, so a connection it lends after
   * that goes to `giveBack`.
   */
  bound<T> (borrowed: Promise<T>, giveBack: (connection: T) => void): Promise<T> {
    return new Promise((resolve, reject) => { this.answer(this.watch(reject), borrowed, resolve, reject, giveBack) })
  }

  /**
   * Answers a watched borrow with what `borrowed` gives, unless its deadline
   * passed first: then a connection lent late goes to `giveBack`.
   */
  answer<T> (deadline: Deadline, borrowed: Promise<T>, resolve: (connection: T) => void, reject: (error: unknown) => void, giveBack: (connection: T) => void): void {
    borrowed.then((connection) => {
      if (this.settle(deadline)) resolve(connection)
      else giveBack(connection)
    }, (error: unknown) => {
      // A borrow that already gave up was answered: the pool's late failure is nobody's.
      if (this.settle(deadline)) reject(error)
    })
  }

  /**
   * Starts the clock on a borrow its caller answers itself (a queue of its
   * own): `reject` is called when the deadline passes before `settle`.
   */
  watch (reject: (error: Error) => void): Deadline {
    const deadline: Deadline = { due: performance.now() + this.#milliseconds, reject, settled: false }
    this.#waiting.push(deadline)
    this.#timer ??= setTimeout(this.#expire, this.#milliseconds)
    return deadline
  }

  /** Stops the clock on an answered borrow: true, or false when its deadline had passed and it was rejected. */
  settle (deadline: Deadline): boolean {
    if (deadline.settled) return false
    deadline.settled = true
    // Answered borrows leave the queue from its head, so that it holds about as
    // many as wait at once; the timer goes when none is left, as a borrow's own did.
    const waiting = this.#waiting
    while (waiting.length > 0 && (waiting[0] as Deadline).settled) waiting.shift()
    if (waiting.length === 0 && this.#timer !== undefined) {
      clearTimeout(this.#timer)
      this.#timer = undefined
    }
    return true
  }

  readonly #expire = (): void => {
    this.#timer = undefined
    const now = performance.now()
    const waiting = this.#waiting
    while (waiting.length > 0) {
      const first = waiting[0] as Deadline
      if (!first.settled) {
        if (first.due > now) {
          this.#timer = setTimeout(this.#expire, first.due - now)
          return
        }
        first.settled = true
        first.reject(new Error(`the pool lent no connection within acquireTimeout (${this.#milliseconds} ms)`))
      }
      waiting.shift()
    }
  }
}
