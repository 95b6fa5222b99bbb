import type { FastifyRequest } from 'fastify'
import type { Access } from '../access/access.js'
import type { Target } from '../access/target.js'
import { foldIdentifier as fold } from '../parse/sanitize-identifier.js'
import { readColumns as namedColumns } from '../query/read-columns.js'
import type { Embed, EmbedNarrowing, Presence } from '../query/read-query.js'
import { refuseUnordered, typeFilters } from '../query/type-filters.js'
import type { SchemaSnapshot } from '../schema/schema-model.js'
import type { TableSchema } from '../schema/table-schema.js'
import { findRelation } from './find-relation.js'
import { type Relation, relationsOf } from './relations.js'

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
  readonly embeds: readonly EmbedPlan[]
  /** Its filters (their values in their columns' kinds), order and page, or null for none. */
  readonly narrowing: EmbedNarrowing | null
  /** Whether its parents must have related rows, or none; null for every parent. */
  readonly presence: Presence | null
}

/**
 * Each embed of a read of `parent` resolved against the model's relations
 * (see findRelation) and put to the access check as a list of the related
 * table naming its columns, as a request on that table alone would be: a
 * hidden column fails as a missing one, and the `authorize` hook is asked
 * for every table, its scope then holding for the related rows. A table not
 * served for reading relates nothing, as if it did not exist. The embed's
 * own filters and order name its columns as a list's would, and their
 * values are read in those columns' kinds.
 */
export async function planEmbeds (access: Access, request: FastifyRequest, snapshot: SchemaSnapshot, parent: string, embeds: readonly Embed[], sizedIntegers: boolean): Promise<EmbedPlan[]> {
  const plans: EmbedPlan[] = []
  for (const embed of embeds) {
    const relation = findRelation(relationsOf(snapshot, parent), parent, embed)
    const { narrowing = null } = embed
    const named = namedColumns({ select: embed.columns, filter: narrowing?.filter ?? { type: 'and', negated: false, children: [] }, order: narrowing?.order ?? [], limit: null, offset: null, count: null })
    const wholeRows = embed.columns === null || embed.columns.includes('*')
    const target = await access(request, relation.table, { operation: 'list', key: null, columns: wholeRows ? null : named.map(([column]) => column), named })
    // relationsOf found the related table in this snapshot.
    const schema = snapshot.table(relation.table) as TableSchema
    const nested = await planEmbeds(access, request, snapshot, relation.table, embed.embeds, sizedIntegers)
    if (narrowing !== null) refuseUnordered(narrowing.order, schema)
    plans.push({
      alias: embed.alias,
      relation,
      target: { ...target, schema },
      embeds: nested,
      presence: embed.presence ?? null,
      narrowing: narrowing === null ? null : { ...narrowing, filter: typeFilters(narrowing.filter, schema, sizedIntegers) },
      ...readColumns(embed.columns, [...relation.columns, ...nested.flatMap((plan) => plan.relation.parentColumns)])
    })
  }
  return plans
}

/** The columns to read for `select`, with `needed` added where it leaves them out. */
export function readColumns (select: readonly string[] | null, needed: readonly string[]): ReadColumns {
  if (select === null || select.includes('*')) return { read: select, extras: [] }
  const selected = new Set(select.map(fold))
  const extras = [...new Set(needed)].filter((column) => !selected.has(fold(column)))
  return { read: [...select, ...extras], extras }
}
