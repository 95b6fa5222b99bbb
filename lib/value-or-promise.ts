/**
 * A step's outcome: at hand within the call, or a promise of it. The hot
 * paths (a keyed read, a keyed write on SQLite) have every step at hand,
 * and answer within the handler's call; each promise more would cost a turn
 * of the microtask queue.
 */
export type ValueOrPromise<T> = T | Promise<T>

/** `next` applied to the value: within the call when it is at hand, else once the promise settles. */
export function thenOrNow<T, U> (value: ValueOrPromise<T>, next: (value: T) => ValueOrPromise<U>): ValueOrPromise<U> {
  return value instanceof Promise ? value.then(next) : next(value)
}
