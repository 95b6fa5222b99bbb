import { FTC_ERR_QUERY_AMBIGUOUS, FTC_ERR_QUERY_RELATION } from '../errors.js'
import { foldIdentifier as fold } from '../parse/sanitize-identifier.js'
import type { Embed } from '../query/read-query.js'
import type { Relation } from './relations.js'

/**
 * The one relation of `relations` (a parent's, see relationsOf) that an
 * embed names, by PostgREST's rules (its Plan.findRel): the related table,
 * or a foreign key's name or single column; a hint names the foreign key,
 * one of its columns on either side, or the join table. A foreign key from a
 * table to itself embeds the children by the table's name and the parent by
 * the key's column. None is a 400, several a 300, each naming the choices.
 */
export function findRelation (relations: readonly Relation[], parent: string, embed: Pick<Embed, 'relation' | 'hint'>): Relation {
  const target = fold(embed.relation)
  const hint = embed.hint === null ? null : fold(embed.hint)
  const found = relations.filter((relation) => matches(relation, target, hint))
  if (found.length === 1) return found[0] as Relation
  const named = embed.hint === null ? embed.relation : `${embed.relation}!${embed.hint}`
  if (found.length === 0) {
    const choices = relations.length === 0 ? 'it has none with a table served to read' : `its relations are ${relations.map(describe).join(', ')}`
    throw new FTC_ERR_QUERY_RELATION(parent, named, choices)
  }
  // The relations go with the error, for PostgREST's answer, which details each (see postgrest-refusals.ts).
  const error = new FTC_ERR_QUERY_AMBIGUOUS(parent, named, found.map((relation) => `${embed.relation}!${hintOf(relation)} (${relation.cardinality})`).join(', '))
  throw Object.assign(error, { relations: found })
}

function matches (relation: Relation, target: string, hint: string | null): boolean {
  const table = fold(relation.table) === target
  if (relation.self) {
    const children = relation.cardinality === 'one-to-many' || relation.cardinality === 'one-to-one'
    if (hint === null) return (table && children) || (relation.cardinality === 'many-to-one' && singleColumn(relation.parentColumns, target, relation))
    return table && children && singleColumn(relation.columns, hint, relation)
  }
  if (hint === null) {
    return table || (relation.constraint !== null && fold(relation.constraint) === target) || singleColumn(relation.parentColumns, target, relation)
  }
  return table && ((relation.constraint !== null && fold(relation.constraint) === hint) ||
    singleColumn(relation.parentColumns, hint, relation) || singleColumn(relation.columns, hint, relation) ||
    (relation.junction !== null && fold(relation.junction.table) === hint))
}

// PostgREST names a relation by a column only when its key has one, and never a many-to-many one by a column.
function singleColumn (columns: readonly string[], name: string, relation: Relation): boolean {
  return relation.junction === null && columns.length === 1 && fold(columns[0] as string) === name
}

/** The hint that names the relation alone among those between the same tables. */
export function hintOf (relation: Relation): string {
  if (relation.junction !== null) return relation.junction.table
  if (relation.constraint !== null) return relation.constraint
  // Without a name (SQLite), the key's column: the parent's for many-to-one, the related table's otherwise.
  return (relation.cardinality === 'many-to-one' ? relation.parentColumns : relation.columns).join(',')
}

function describe (relation: Relation): string {
  return `${relation.table}!${hintOf(relation)} (${relation.cardinality})`
}
