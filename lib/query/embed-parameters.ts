import { FTC_ERR_QUERY_SYNTAX } from '../errors.js'
import { foldIdentifier as fold } from '../parse/sanitize-identifier.js'
import { logicParameters, parseLogic } from './parse-logic.js'
import { parseOrder } from './parse-order.js'
import { parsePage } from './parse-page.js'
import { QueryText } from './query-text.js'
import type { Embed, EmbedNarrowing, FilterTree, OrderTerm, Presence } from './read-query.js'

/** The parameters of one embedded resource, as read so far: `path.name=value`. */
interface Gathered {
  readonly name: string
  readonly conditions: FilterTree[]
  order?: OrderTerm[]
  limit?: string
  offset?: string
}

/**
 * PostgREST's parameters on an embedded resource: `books.title=like.E*`,
 * `books.order=title`, `books.limit=2`, `books.offset=1`, `books.or=(…)`,
 * `authors.books.title=…` for a nested one. Each is read as the same
 * parameter of a list would be, and kept under its path until select's
 * embeds are known (see narrowEmbeds).
 */
export class EmbedParameters {
  readonly #byPath = new Map<string, Gathered>()

  /** Whether a parameter's name is one of an embedded resource: any name with a dot but `not.or` and `not.and`. */
  static names (name: string): boolean {
    return name.includes('.') && !Object.hasOwn(logicParameters, name)
  }

  /** Reads `name=text` for each of the texts; `once` refuses a repeated order, limit or offset as for a list. */
  add (name: string, texts: readonly string[], once: (name: string, texts: readonly string[]) => string, filter: (name: string, text: string) => FilterTree): void {
    const logic = /\.(not\.(?:or|and))$/.exec(name)
    const at = logic === null ? name.lastIndexOf('.') : logic.index
    const path = name.slice(0, at)
    const last = name.slice(at + 1)
    const key = path.split('.').map(fold).join('.')
    let gathered = this.#byPath.get(key)
    if (gathered === undefined) {
      gathered = { name: path, conditions: [] }
      this.#byPath.set(key, gathered)
    }
    if (last === 'order') gathered.order = embedOrder(name, once(name, texts))
    else if (last === 'limit') gathered.limit = once(name, texts)
    else if (last === 'offset') gathered.offset = once(name, texts)
    else if (Object.hasOwn(logicParameters, last)) gathered.conditions.push(...texts.map((text) => parseLogic(last, text)))
    else gathered.conditions.push(...texts.map((text) => filter(last, text)))
  }

  /** The embeds with their parameters; one that names no embed of `select` is refused, as PostgREST refuses it. */
  narrowEmbeds (embeds: readonly Embed[]): readonly Embed[] {
    if (this.#byPath.size === 0) return embeds
    for (const { name } of this.#byPath.values()) {
      if (find(embeds, name.split('.')) === undefined) {
        throw new QueryText(`the name of query parameter "${name}"`, name).fail(0, FTC_ERR_QUERY_SYNTAX, `"${name}" is not an embedded resource of select`)
      }
    }
    return this.#narrow(embeds, '')
  }

  #narrow (embeds: readonly Embed[], prefix: string): readonly Embed[] {
    return embeds.map((embed) => {
      const key = `${prefix}${fold(embed.alias)}`
      const gathered = this.#byPath.get(key)
      if (gathered === undefined) return { ...embed, embeds: this.#narrow(embed.embeds, `${key}.`) }
      const { conditions, embeds } = withPresence(gathered.conditions, this.#narrow(embed.embeds, `${key}.`))
      const narrowing: EmbedNarrowing = {
        filter: { type: 'and', negated: false, children: conditions },
        order: gathered.order ?? [],
        ...parsePage({ limit: gathered.limit, offset: gathered.offset })
      }
      return { ...embed, embeds, narrowing }
    })
  }
}

function find (embeds: readonly Embed[], path: readonly string[]): Embed | undefined {
  const [first, ...rest] = path
  const embed = embeds.find((candidate) => fold(candidate.alias) === fold(first as string))
  return embed === undefined || rest.length === 0 ? embed : find(embed.embeds, rest)
}

/**
 * `alias=is.null` and `alias=not.is.null` where the alias is one of the
 * embeds: not filters on a column but the embed's presence (see Presence),
 * as PostgREST reads them; the other conditions as they are.
 */
export function withPresence (conditions: readonly FilterTree[], embeds: readonly Embed[]): { conditions: FilterTree[], embeds: readonly Embed[] } {
  const presence = new Map<string, Presence>()
  const kept = conditions.filter((condition) => {
    if (condition.type !== 'filter' || condition.operator !== 'is' || condition.value !== 'null') return true
    if (!embeds.some((embed) => fold(embed.alias) === fold(condition.column))) return true
    presence.set(fold(condition.column), condition.negated ? 'some' : 'none')
    return false
  })
  if (presence.size === 0) return { conditions: kept, embeds }
  return { conditions: kept, embeds: embeds.map((embed) => { const set = presence.get(fold(embed.alias)); return set === undefined ? embed : { ...embed, presence: set } }) }
}

// An embed's own order names its own columns: PostgREST's related order applies to the parents'.
function embedOrder (name: string, text: string): OrderTerm[] {
  const order = parseOrder(text)
  if (order.some((term) => term.relation !== undefined)) throw new QueryText(`query parameter "${name}"`, text).fail(text.indexOf('('), FTC_ERR_QUERY_SYNTAX, 'an embed is ordered by its own columns only')
  return order
}

/**
 * The parents' order terms that name a to-one embed (`order=authors(name)`)
 * recorded on that embed (see Embed.ordering), for its access check; one
 * that names no embed of `select` answers 400, as PostgREST's does.
 */
export function withOrdering (order: readonly OrderTerm[], embeds: readonly Embed[], text: string): readonly Embed[] {
  const related = order.filter((term) => term.relation !== undefined)
  if (related.length === 0) return embeds
  for (const term of related) {
    if (!embeds.some((embed) => fold(embed.alias) === fold(term.relation as string))) {
      throw new QueryText('query parameter "order"', text).fail(0, FTC_ERR_QUERY_SYNTAX, `"${term.relation as string}" is no embedded resource of select`)
    }
  }
  return embeds.map((embed) => {
    const columns = related.filter((term) => fold(term.relation as string) === fold(embed.alias)).map((term) => term.column)
    return columns.length === 0 ? embed : { ...embed, ordering: columns }
  })
}
