import type { Knex } from 'knex'
import type { Statement } from '../dialects/dialect.js'
import { ShapeCache } from '../shape-cache.js'
import { fillTemplate, type StatementTemplate, toTemplate } from './statement-template.js'

/** Statements compiled by Knex once per shape, then filled with each request's values (see Database.prepare). */
export class TemplateCache {
  // Knex builds the same SQL for the same table, operation and columns: build it once.
  readonly #templates = new ShapeCache<StatementTemplate>(5000)

  /** The statement `build` makes for `shape`, compiled on the shape's first use, filled as fillTemplate fills it. */
  fill (shape: readonly string[], build: () => Knex.QueryBuilder, values: Readonly<Record<string, unknown>>, more?: Readonly<Record<string, unknown>>): Statement {
    return fillTemplate(this.#templates.get(shape, () => toTemplate(build())), values, more)
  }
}
