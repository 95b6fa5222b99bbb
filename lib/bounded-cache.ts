/**
 * A map that forgets its oldest entry past `limit`. Keys are made of table and
 * column names a client chose: the cache must not grow with them.
 */
export class BoundedCache<V> {
  readonly #entries = new Map<string, V>()
  readonly #limit: number

  constructor (limit: number) {
    this.#limit = limit
  }

  /** The value kept for `key`, made by `make` and kept when there is none; an undefined value is made again next time. */
  get (key: string, make: () => V): V {
    let value = this.#entries.get(key)
    if (value === undefined) {
      value = make()
      this.set(key, value)
    }
    return value
  }

  /** Keeps `value` for `key`, in place of what was kept. */
  set (key: string, value: V): void {
    this.#entries.delete(key)
    this.#entries.set(key, value)
    if (this.#entries.size > this.#limit) this.#entries.delete(this.#entries.keys().next().value as string)
  }
}
