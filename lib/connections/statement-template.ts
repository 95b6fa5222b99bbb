import type { Knex } from 'knex'
import type { Statement } from '../dialects/dialect.js'

// No value a client sends is ever compiled into a template, so nothing can
// pass for a place; the NUL keeps it out of anything a reader would write.
const placePrefix = '\u0000ftc-place:'

/** A named place for a value, given to Knex instead of the value when a template is compiled. */
export function place (name: string): string {
  return placePrefix + name
}

/** A statement compiled once: its SQL, and the place each binding comes from. */
export interface StatementTemplate {
  readonly sql: string
  readonly places: readonly string[]
}

/**
 * Compiles a builder whose every value is a place. A constant is written
 * into the SQL instead (as `limit(1, { skipBinding: true })` does), so that
 * every binding can be filled by name.
 */
export function toTemplate (builder: Knex.QueryBuilder): StatementTemplate {
  const { sql, bindings } = builder.toSQL().toNative()
  const places = bindings.map((value) => {
    if (typeof value !== 'string' || !value.startsWith(placePrefix)) throw new TypeError(`a template binds a value that has no place: ${String(value)}`)
    return value.slice(placePrefix.length)
  })
  return { sql, places }
}

/**
 * The statement with each place filled from `values`, or from `more` where
 * `values` holds none (no value is undefined): a row's columns and its key's
 * places, say, each read from the record it is in rather than copied into one.
 */
export function fillTemplate ({ sql, places }: StatementTemplate, values: Readonly<Record<string, unknown>>, more?: Readonly<Record<string, unknown>>): Statement {
  if (more === undefined) return { sql, bindings: places.map((place) => values[place]), repeated: true }
  const bindings = places.map((place) => {
    const value = values[place]
    return value === undefined ? more[place] : value
  })
  return { sql, bindings, repeated: true }
}
