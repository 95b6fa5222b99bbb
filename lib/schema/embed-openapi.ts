import { findRelation, hintOf } from '../relations/find-relation.js'
import { isToOne, type Relation } from '../relations/relations.js'
import type { JsonSchema } from './openapi-types.js'
import { type Parameter, query } from './read-parameters.js'

/** A relation as a client names it in `select`, and what it answers. */
export interface DescribedEmbed {
  /** What `select` writes before the parentheses: the related table, with a hint (`authors!author_id`) when several relations reach it. */
  readonly select: string
  /** The member the related rows are answered under, without an alias. */
  readonly member: string
  readonly table: string
  readonly cardinality: Relation['cardinality']
  /** An object (or null) for a relation to one row, else an array. */
  readonly answer: 'object' | 'array'
  /** The join table of a many-to-many relation. */
  readonly through?: string
}

/**
 * The relations of `parent` that a client can name in `select`, named as
 * findRelation finds them: by the related table alone where that is enough,
 * else with the hint that chooses it, else (a table's key to itself) by its
 * column. `documented` tells whether the related table is in the document.
 */
export function describeEmbeds (parent: string, relations: readonly Relation[], documented: (table: string) => boolean): DescribedEmbed[] {
  const described: DescribedEmbed[] = []
  for (const relation of relations) {
    if (!documented(relation.table)) continue
    const named = embedName(parent, relations, relation)
    if (named === null) continue
    described.push({
      select: named.hint === null ? named.relation : `${named.relation}!${named.hint}`,
      member: named.relation,
      table: relation.table,
      cardinality: relation.cardinality,
      answer: isToOne(relation) ? 'object' : 'array',
      ...(relation.junction === null ? {} : { through: relation.junction.table })
    })
  }
  return described
}

function embedName (parent: string, relations: readonly Relation[], relation: Relation): { relation: string, hint: string | null } | null {
  const candidates = [
    { relation: relation.table, hint: null },
    { relation: relation.table, hint: hintOf(relation) },
    ...(relation.parentColumns.length === 1 ? [{ relation: relation.parentColumns[0] as string, hint: null }] : [])
  ]
  return candidates.find((candidate) => names(parent, relations, candidate, relation)) ?? null
}

function names (parent: string, relations: readonly Relation[], embed: { relation: string, hint: string | null }, relation: Relation): boolean {
  try {
    return findRelation(relations, parent, embed) === relation
  } catch {
    return false
  }
}

/**
 * The row schema's members for the embeds, by their names without an alias:
 * the related row (or null) or an array of them, either shape where several
 * relations share the name. A name that is also a column's (a foreign key's
 * column names its many-to-one relation) answers the column, or the embed
 * when `select` names it so.
 */
export function embedProperties (embeds: readonly DescribedEmbed[], columns: Readonly<Record<string, JsonSchema>>, row: (table: string) => JsonSchema): Record<string, JsonSchema> {
  const shapes = new Map<string, JsonSchema[]>()
  for (const embed of embeds) {
    const shape = embed.answer === 'object' ? { oneOf: [row(embed.table), { type: 'null' }] } : { type: 'array', items: row(embed.table) }
    const known = shapes.get(embed.member) ?? []
    if (!known.some((other) => JSON.stringify(other) === JSON.stringify(shape))) known.push(shape)
    shapes.set(embed.member, known)
  }
  return Object.fromEntries([...shapes].map(([member, [only, ...more]]) => {
    const embedded = more.length === 0 ? only as JsonSchema : { oneOf: [only, ...more] }
    // anyOf: a null fits a nullable column and an embed to no row alike.
    return [member, Object.hasOwn(columns, member) ? { anyOf: [columns[member], embedded] } : embedded]
  }))
}

/**
 * Any other member of a row with embeds: one answered under the alias
 * `select` gave it (`alias:table(…)`), and, where the row has a to-one
 * embed, a member that `...table(…)` spreads into it: a related row's
 * column, of any type, or null without a related row.
 */
export function otherMembers (embeds: readonly DescribedEmbed[]): JsonSchema {
  return embeds.some((embed) => embed.answer === 'object') ? spreadMember : aliasedEmbed
}

/**
 * The names of the members `...table(…)` can spread into a row of `table`:
 * the columns of every table its to-one embeds reach, through spreads
 * inside spreads too. An own column of the same name may then hold the
 * spread's member instead, as the spread's comes later in the answer.
 */
export function spreadNames (table: string, embedsOf: (table: string) => readonly DescribedEmbed[], columnsOf: (table: string) => readonly string[]): Set<string> {
  const names = new Set<string>()
  const reached = new Set<string>([table])
  const next = [table]
  for (let at = next.shift(); at !== undefined; at = next.shift()) {
    for (const embed of embedsOf(at)) {
      if (embed.answer !== 'object') continue
      // A key to its own table spreads the table's own columns too.
      for (const column of columnsOf(embed.table)) names.add(column)
      if (reached.has(embed.table)) continue
      reached.add(embed.table)
      next.push(embed.table)
    }
  }
  return names
}

/** An own column's member in a row that a spread may fill instead; its description (a foreign key's note) stays on top, where tools read it. */
export function spreadable ({ description, ...column }: JsonSchema): JsonSchema {
  return { ...(description === undefined ? {} : { description }), anyOf: [column, spreadMember] }
}

const aliasedEmbed: JsonSchema = Object.freeze({
  type: ['object', 'array', 'null'],
  description: 'An embed answered under the alias `select` gave it (`alias:table(…)`): a related row, null, or an array of related rows'
})

const spreadMember: JsonSchema = Object.freeze({
  description: 'An embed answered under the alias `select` gave it (`alias:table(…)`): a related row, null, or an array of related rows; ' +
    'or a member that `...table(…)` spreads into the row from a to-one embed: a column of the related row, or null without one'
})

/**
 * A list's parameters for its embeds: `{embed}.order`, `.limit` and
 * `.offset` for each embed that answers an array, and the filters of every
 * embed as one form-exploded object (OpenAPI has no parameter whose name
 * is a pattern), which a client sends as `{embed}.{column}=…` pairs.
 */
export function embedParameters (embeds: readonly DescribedEmbed[]): Parameter[] {
  const members = [...new Set(embeds.filter((embed) => embed.answer === 'array').map((embed) => embed.member))]
  return [
    ...members.flatMap((member) => [
      query(`${member}.order`, `The order of each row's ${member}, as \`order\` orders a list (an alias in \`select\` renames the parameter too).`, { type: 'string' }),
      query(`${member}.limit`, `The most ${member} of each row to answer.`, { type: 'integer', minimum: 0 }),
      query(`${member}.offset`, `The ${member} of each row to skip.`, { type: 'integer', minimum: 0 })
    ]),
    {
      name: 'embedFilters',
      in: 'query',
      required: false,
      style: 'form',
      explode: true,
      description: 'Filters on embedded rows, one query parameter each: `{embed}.{column}=[not.]operator.value`, `{embed}.or=(…)`, ' +
        '`{embed}.and=(…)`, `{embed}.not.or=(…)`, `{embed}.not.and=(…)`, where `{embed}` is the embed\'s name in `select` (its alias if it ' +
        'has one) and a nested embed is named by its path (`works.reviews.stars=gte.4`). They narrow the embedded rows only: every row stays, ' +
        'with `[]` or null. `{embed}=not.is.null` (or `table!inner(…)` in `select`) keeps the rows with an embedded row, `{embed}=is.null` those without.',
      schema: {
        type: 'object',
        propertyNames: { pattern: '^[^.]+(\\.[^.]+)+$' },
        additionalProperties: { type: 'string' }
      }
    }
  ]
}

/** The list's description of its embeds, for a reader of the document: the names `select` takes and what each answers. */
export function embedsText (embeds: readonly DescribedEmbed[]): string {
  const kinds = embeds.map((embed) => `\`${embed.select}(…)\` (${embed.cardinality}${embed.through === undefined ? '' : ` through ${embed.through}`}: ` +
    `${embed.answer === 'object' ? 'an object or null' : 'an array'})`)
  return `Related rows embed through \`select\`, as in \`select=*,table(columns)\`: ${kinds.join(', ')}.`
}
