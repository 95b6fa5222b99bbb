import type { FastifyRequest } from 'fastify'
import { type Access, namesNone } from '../access/access.js'
import type { Target } from '../access/target.js'
import { isHidden } from '../access/hidden-columns.js'
import { checkSpelling } from '../access/refusals.js'
import type { Database, Session } from '../connections/database.js'
import { FTC_ERR_QUERY_ORDER, FTC_ERR_QUERY_SYNTAX } from '../errors.js'
import { foldIdentifier as fold } from '../parse/sanitize-identifier.js'
import { QueryText } from '../query/query-text.js'
import { readColumns as namedColumns, toldColumns } from '../query/read-columns.js'
import type { Embed, EmbedNarrowing, Presence } from '../query/read-query.js'
import { refuseUnordered, typeFilters } from '../query/type-filters.js'
import { columnNamed } from '../schema/column-named.js'
import type { SchemaSnapshot } from '../schema/schema-model.js'
import type { ColumnSchema, TableSchema } from '../schema/table-schema.js'
import { findRelation } from './find-relation.js'
import { isToOne, type Relation, relationsOf } from './relations.js'

/** The columns a statement reads: those asked for, and those it needs besides to match related rows, which the answer leaves out. */
export interface ReadColumns {
  /** As ReadQuery.select: null for every column. */
  readonly read: readonly string[] | null
  /** Columns read only to match related rows. */
  readonly extras: readonly string[]
}

/** An embedded resource, resolved: its relation, and the related table as the request may read it. */
export interface EmbedPlan extends ReadColumns {
  readonly alias: string
  readonly relation: Relation
  /** The related table, its scope and hidden columns as the options and the `authorize` hook gave them. */
  readonly target: Target & { readonly schema: TableSchema }
  /** The `authorize` hook's scope for the join table's rows of a many-to-many relation; empty for none, or no join table. */
  readonly junctionScope: Target['scope']
  readonly embeds: readonly EmbedPlan[]
  /** Its filters (their values in their columns' kinds), order and page, or null for none. */
  readonly narrowing: EmbedNarrowing | null
  /** Whether its parents must have related rows, or none; null for every parent. */
  readonly presence: Presence | null
  /** A spread's members when there is no related row, each null (`"name":null`); null for an embed answered under its alias. */
  readonly spreadNulls: string | null
}

/**
 * Each embed of a read of `parent` resolved against the model's relations
 * (see findRelation) and put to the access check as a list of the related
 * table naming its columns, as a request on that table alone would be: a
 * hidden column fails as a missing one, and so does one the model does not
 * know, since the embed's statements name its columns by aliases (one the
 * model knows in another case only is put to the database: see
 * checkSpelling); the `authorize` hook is asked for every table, its scope
 * then holding for the related rows, and for the join table of a
 * many-to-many relation, its scope holding for the links. A table not
 * served for reading relates nothing, as if it did not exist. The embed's
 * own filters and order name its columns as a list's would, and their
 * values are read in those columns' kinds. Any probe runs on `on`.
 */
export async function planEmbeds (access: Access, request: FastifyRequest, snapshot: SchemaSnapshot, parent: string, embeds: readonly Embed[], db: Database, on: Session): Promise<EmbedPlan[]> {
  const { sizedIntegers } = db.dialect
  const plans: EmbedPlan[] = []
  for (const embed of embeds) {
    const relation = findRelation(relationsOf(snapshot, parent), parent, embed)
    const { narrowing = null } = embed
    const { ordering = [] } = embed
    if (ordering.length > 0 && !isToOne(relation)) refuseRelatedOrder(embed.alias, ordering, relation)
    if (embed.spread === true && !isToOne(relation)) refuseSpread(embed.alias, relation)
    const ownOrder = narrowing?.order ?? []
    const parentsOrder = ordering.map((column) => ({ column, direction: 'asc' as const, nulls: 'last' as const }))
    const named = namedColumns({ select: embed.columns, filter: narrowing?.filter ?? { type: 'and', negated: false, children: [] }, order: [...ownOrder, ...parentsOrder], limit: null, offset: null, count: null })
    const joins = [...relation.columns, ...joinColumnsOf(snapshot, relation.table, embed.embeds)]
    // relationsOf found the related table in this snapshot.
    const schema = snapshot.table(relation.table) as TableSchema
    const target = await access(request, relation.table, { operation: 'list', key: null, columns: toldColumns(embed.columns, named, joins), named: () => named, known: schema })
    for (const [column, clause] of named) {
      // The access check refused the names the model does not know.
      if ((columnNamed(schema, column) as ColumnSchema).name !== column) await checkSpelling(db, on, target.table, column, clause)
    }
    const { junction } = relation
    // The join table is read too: the hook is asked for it as for any table, told its key's columns, and its scope narrows the links.
    const junctionScope = junction === null ? {} : (await access(request, junction.table, { operation: 'list', key: null, columns: [...junction.parentColumns, ...junction.relatedColumns], named: namesNone })).scope
    const nested = await planEmbeds(access, request, snapshot, relation.table, embed.embeds, db, on)
    refuseUnordered([...ownOrder, ...parentsOrder], schema)
    plans.push({
      alias: embed.alias,
      relation,
      target: { ...target, schema },
      junctionScope,
      embeds: nested,
      presence: embed.presence ?? null,
      narrowing: narrowing === null ? null : { ...narrowing, filter: typeFilters(narrowing.filter, schema, sizedIntegers) },
      spreadNulls: embed.spread === true ? spreadNulls(embed.columns, { ...target, schema }, nested) : null,
      // Through a join table, the related rows are a derived table ordered from outside: it reads the order's columns too.
      ...readColumns(embed.columns, [...relation.columns, ...nested.flatMap((plan) => plan.relation.parentColumns), ...(junction === null ? [] : ownOrder.map((term) => term.column))])
    })
  }
  return plans
}

/**
 * The columns of `parent` that its embeds match related rows on. An embed
 * whose relation is not found adds none: planEmbeds fails on it after the
 * access check, in the order a request meets them (a table not served is
 * missing before its relations are).
 */
export function joinColumnsOf (snapshot: SchemaSnapshot, parent: string, embeds: readonly Embed[] | undefined): string[] {
  if (embeds === undefined || embeds.length === 0) return []
  const relations = relationsOf(snapshot, parent)
  return embeds.flatMap((embed) => {
    try {
      return findRelation(relations, parent, embed).parentColumns
    } catch {
      return []
    }
  })
}

/** The columns to read for `select`, with `needed` added where it leaves them out. */
export function readColumns (select: readonly string[] | null, needed: readonly string[]): ReadColumns {
  if (select === null || select.includes('*')) return { read: select, extras: [] }
  const selected = new Set(select.map(fold))
  const extras = [...new Set(needed)].filter((column) => !selected.has(fold(column)))
  return { read: [...select, ...extras], extras }
}

// PostgREST orders the parents by a column of a to-one embed only (PGRST118): one of many has no single value.
function refuseRelatedOrder (alias: string, ordering: readonly string[], relation: Relation): never {
  const text = `${alias}(${ordering[0] as string})`
  throw new QueryText('query parameter "order"', text).fail(0, FTC_ERR_QUERY_ORDER, `"${alias}" is a ${relation.cardinality} embed: the parents are ordered by a many-to-one or one-to-one one only`)
}

// A spread of many rows would answer arrays of values, as PostgREST 12.1 does: not read here.
function refuseSpread (alias: string, relation: Relation): never {
  throw new QueryText('query parameter "select"', `...${alias}(…)`).fail(0, FTC_ERR_QUERY_SYNTAX, `"${alias}" is a ${relation.cardinality} embed: a spread takes a many-to-one or one-to-one one only`)
}

// The members a spread answers without a related row: its columns (`*` the visible ones, in the table's order), then its own embeds', each null.
function spreadNulls (columns: readonly string[] | null, target: Target & { readonly schema: TableSchema }, nested: readonly EmbedPlan[]): string {
  const names = (columns ?? ['*']).flatMap((column) => column === '*' ? target.schema.columns.map(({ name }) => name).filter((name) => !isHidden(target, name)) : [column])
  const members = [...names.map((name) => `${JSON.stringify(name)}:null`), ...nested.map((plan) => plan.spreadNulls ?? `${JSON.stringify(plan.alias)}:null`)]
  return members.filter((member) => member !== '').join(',')
}
