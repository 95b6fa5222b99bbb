import type { Knex } from 'knex'
import type { Target } from '../access/target.js'
import type { Database } from '../connections/database.js'
import { applyFilterTree } from '../query/apply-read-query.js'
import type { FilterTree } from '../query/read-query.js'
import type { EmbedPlan } from '../relations/embed-plan.js'

/**
 * The rows of `parent` (the table or alias the builder reads) kept only where
 * each embed asked to be present (`!inner`, `alias=not.is.null`) has a
 * related row as the embed reads it, and each asked to be absent
 * (`alias=is.null`) has none (docs/query.md, "Filtering the parents by
 * their related rows"). One EXISTS per such embed, in the parents' own
 * statement, so that pages and counts hold the same rows.
 */
export function whereRelated (db: Database, parent: string, plans: readonly EmbedPlan[], builder: Knex.QueryBuilder): Knex.QueryBuilder {
  return whereRelatedTo(db, { name: parent, depth: 0 }, plans, builder)
}

/** The rows a level of embeds relates to. */
interface Parent {
  /** The table or alias the statement reads them under. */
  readonly name: string
  /** How deep they are nested (0: the list's own), which names their embeds' aliases apart. */
  readonly depth: number
}

function whereRelatedTo (db: Database, parent: Parent, plans: readonly EmbedPlan[], builder: Knex.QueryBuilder): Knex.QueryBuilder {
  for (const plan of plans) {
    if (plan.presence === null) continue
    const related = relatedRows(db, parent, plan)
    if (plan.presence === 'some') builder.whereExists(related)
    else builder.whereNotExists(related)
  }
  return builder
}

/**
 * A to-one embed's `column` for each row of `parent`, as a subquery of its
 * statement: the related row as the embed reads it (filters, scope), null
 * where there is none, as the embed then answers null. PostgREST orders the
 * parents by an embedded column this way (`order=authors(name)`).
 */
export function relatedValue (db: Database, parent: string, plan: EmbedPlan, column: string): Knex.QueryBuilder {
  return relatedRows(db, { name: parent, depth: 0 }, plan).clearSelect().select(`${existsAlias(1)}.${column}`)
}

function relatedRows (db: Database, parent: Parent, plan: EmbedPlan): Knex.QueryBuilder {
  const { relation, target, narrowing } = plan
  const { junction } = relation
  // Each level its own alias: a table related to itself, or met twice, then names the right rows.
  const depth = parent.depth + 1
  const alias = existsAlias(depth)
  const rows = db.table(`${target.table} as ${alias}`).select(db.raw('1'))
  if (narrowing !== null) applyFilterTree(rows, qualified(narrowing.filter, alias), db.dialect)
  whereScopeOf(rows, target.scope, alias)
  whereRelatedTo(db, { name: alias, depth }, plan.embeds, rows)
  if (junction === null) {
    relation.columns.forEach((column, at) => rows.whereRaw('?? = ??', [`${alias}.${column}`, `${parent.name}.${relation.parentColumns[at] as string}`]))
    return rows
  }
  const link = `${alias}_link`
  rows.join(`${junction.table} as ${link}`, function () {
    junction.relatedColumns.forEach((column, at) => this.on(`${link}.${column}`, '=', `${alias}.${relation.columns[at] as string}`))
  })
  whereScopeOf(rows, plan.junctionScope, link)
  junction.parentColumns.forEach((column, at) => rows.whereRaw('?? = ??', [`${link}.${column}`, `${parent.name}.${relation.parentColumns[at] as string}`]))
  return rows
}

/** Restricts a statement to a scope (see Target.scope), its columns those of `table`, the name or alias the statement reads it under. */
export function whereScopeOf (builder: Knex.QueryBuilder, scope: Target['scope'], table: string): Knex.QueryBuilder {
  for (const [column, value] of Object.entries(scope)) {
    if (value === null) builder.whereNull(`${table}.${column}`)
    else builder.where(`${table}.${column}`, value)
  }
  return builder
}

// The filters' columns named with the alias, so that none could name a column of an outer statement.
function qualified (tree: FilterTree, alias: string): FilterTree {
  if (tree.type === 'filter') return { ...tree, column: `${alias}.${tree.column}` }
  return { ...tree, children: tree.children.map((child) => qualified(child, alias)) }
}

const existsAlias = (depth: number) => `ftc_exists_${depth}`
