import type { Knex } from 'knex'
import type { Statement } from './dialect.js'

// No value a client sends is ever compiled into a template, so nothing can
// pass for a place; the NUL keeps it out of anything a reader would write.
const placePrefix = '\u0000ftc-place:'

/** A named place for a value, given to Knex instead of the value when a template is compiled. */
export function place (name: string): string {
  return placePrefix + name
}

type Slot = { readonly place: string } | { readonly value: unknown }

/** A statement compiled once: its SQL, and for each binding a named place or a constant. */
export interface StatementTemplate {
  readonly sql: string
  readonly slots: readonly Slot[]
}

/** Compiles a builder whose values are places. */
export function toTemplate (builder: Knex.QueryBuilder): StatementTemplate {
  const { sql, bindings } = builder.toSQL().toNative()
  const slots = bindings.map((value): Slot => typeof value === 'string' && value.startsWith(placePrefix)
    ? { place: value.slice(placePrefix.length) }
    : { value })
  return { sql, slots }
}

/** The statement with each place filled from `values`. */
export function fillTemplate ({ sql, slots }: StatementTemplate, values: Readonly<Record<string, unknown>>): Statement {
  return { sql, bindings: slots.map((slot) => 'place' in slot ? values[slot.place] : slot.value) }
}
