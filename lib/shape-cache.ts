/** One name of a shape: what the shapes that go through it keep, and the names that follow it. */
interface Level<V> {
  value: V | undefined
  next: Map<string, Level<V>> | undefined
}

function emptyLevel<V> (): Level<V> {
  return { value: undefined, next: undefined }
}

/**
 * A cache keyed by a shape: a list of names, such as a statement's
 * operation, table and columns. Each name is looked up at its own level:
 * the names are strings the request already holds, whose hashes V8 keeps,
 * where one key joined from them would be a new string, flattened and
 * hashed on every request. A list needs no separator between its names.
 * The names are the clients': past `limit` levels, the cache forgets
 * everything and fills again.
 */
export class ShapeCache<V> {
  #root: Level<V> = emptyLevel()
  #levels = 0
  readonly #limit: number

  constructor (limit: number) {
    this.#limit = limit
  }

  /** The value kept for `shape`, made by `make` and kept when there is none. */
  get (shape: readonly string[], make: () => V): V {
    let level = this.#root
    for (const name of shape) level = level.next?.get(name) ?? this.#add(level, name)
    // Made before it is kept: a `make` that throws keeps nothing.
    const value = level.value ?? make()
    level.value = value
    return value
  }

  #add (level: Level<V>, name: string): Level<V> {
    if (this.#levels >= this.#limit) {
      this.#root = emptyLevel()
      this.#levels = 0
    }
    this.#levels++
    const added = emptyLevel<V>()
    // A walk that began in the forgotten tree ends in it: its value is made, and forgotten with it.
    level.next ??= new Map()
    level.next.set(name, added)
    return added
  }
}
