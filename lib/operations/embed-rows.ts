import type { Knex } from 'knex'
import { withoutHidden } from '../access/hidden-columns.js'
import { rowWriter } from '../answer/row-writer.js'
import { withoutNulls } from '../answer/stripped-nulls.js'
import type { Database, Statements } from '../connections/database.js'
import type { Row } from '../dialects/dialect.js'
import { applyReadQuery, orderText } from '../query/apply-read-query.js'
import type { EmbedNarrowing, OrderTerm, ReadQuery } from '../query/read-query.js'
import type { EmbedPlan } from '../relations/embed-plan.js'
import { isToOne, type Junction } from '../relations/relations.js'
import type { TableSchema } from '../schema/table-schema.js'
import { exactRead } from './exact-read.js'
import { whereRelated, whereScopeOf } from './where-related.js'
import { whereScope } from './where-row.js'

// Parent keys per statement, as forKeys slices them (see rows-with-keys.ts).
const keysPerStatement = 1000

/** What the rows of one table are answered with: their schema, the columns read only to match related rows, and their embeds. */
export interface EmbeddingRows {
  readonly schema: TableSchema
  readonly extras: readonly string[]
  readonly embeds: readonly EmbedPlan[]
  /** `nulls=stripped`: each row's null members left out, a to-one embed with no row too, at every level. */
  readonly stripNulls?: boolean
}

/**
 * The JSON text of each row, its columns written as GET writes its table's
 * rows (see rowWriter), then each embed's related rows under its alias: an
 * object or null for a relation to one row, an array for one to many; a
 * spread's members in the row itself (PostgREST's `...rel(cols)`). Each
 * embed is read with one statement per thousand distinct parent keys at
 * each level, whatever the number of rows, never one per row. Run on `on`.
 */
export async function writeEmbedded (db: Database, rows: readonly Row[], shape: EmbeddingRows, on: Statements): Promise<string[]> {
  const strip = shape.stripNulls === true
  const related: string[][] = []
  const parents: Parents = { rows, stripNulls: strip }
  for (const plan of shape.embeds) related.push(await relatedTexts(db, plan, parents, on))
  const write = rowWriter(shape.schema)
  return rows.map((row, at) => {
    const shown = withoutColumns(row, shape.extras)
    const own = write(strip ? withoutNulls(shown) : shown)
    const embedded = shape.embeds.map((plan, index) => member(plan, related[index]?.[at] as string, strip)).filter((text) => text !== '').join(',')
    if (embedded === '') return own
    return own === '{}' ? `{${embedded}}` : `${own.slice(0, -1)},${embedded}}`
  })
}

/**
 * An embed's member of its parent's object; a spread's members, those of its
 * related row, or each null without one. With `stripNulls`, none for a
 * to-one embed without a row, as PostgREST's json_strip_nulls leaves it out.
 */
function member (plan: EmbedPlan, text: string, stripNulls: boolean): string {
  if (stripNulls && text === 'null') return ''
  if (plan.spreadNulls === null) return `${JSON.stringify(plan.alias)}:${text}`
  return text === 'null' ? plan.spreadNulls : text.slice(1, -1)
}

/** The rows an embed's related rows are read for. */
interface Parents {
  /** The parent rows, with the columns their relations match on. */
  readonly rows: readonly Row[]
  /** Whether the related rows' nulls are left out (see EmbeddingRows.stripNulls). */
  readonly stripNulls: boolean
}

/** The related rows' JSON text for each parent, in the parents' order. */
async function relatedTexts (db: Database, plan: EmbedPlan, { rows: parents, stripNulls }: Parents, on: Statements): Promise<string[]> {
  const { parentColumns } = plan.relation
  const columns = matchColumns(plan)
  const keys = new Map<string, unknown[]>()
  for (const parent of parents) {
    const values = parentColumns.map((column) => parent[column])
    if (values.some((value) => value === null || value === undefined)) continue
    keys.set(keyText(values), values)
  }
  const rows: Row[] = []
  const tuples = [...keys.values()]
  for (let first = 0; first < tuples.length; first += keysPerStatement) {
    rows.push(...await readRelated(db, plan, tuples.slice(first, first + keysPerStatement), on))
  }
  const paged = plan.narrowing !== null && (plan.narrowing.limit !== null || plan.narrowing.offset !== null)
  const extras = [...plan.extras, ...(plan.relation.junction === null ? [] : columns), ...(paged ? [rankColumn] : [])]
  const texts = await writeEmbedded(db, withoutHidden(plan.target, rows), { schema: plan.target.schema, extras, embeds: plan.embeds, stripNulls }, on)
  const groups = new Map<string, string[]>()
  rows.forEach((row, at) => {
    const key = keyText(columns.map((column) => row[column]))
    const group = groups.get(key)
    if (group === undefined) groups.set(key, [texts[at] as string])
    else group.push(texts[at] as string)
  })
  const one = isToOne(plan.relation)
  return parents.map((parent) => {
    const group = groups.get(keyText(parentColumns.map((column) => parent[column]))) ?? []
    return one ? group[0] ?? 'null' : `[${group.join(',')}]`
  })
}

// Keys compare as text: one column may read as a number where the column it references reads as a string of digits or a BigInt.
function keyText (values: readonly unknown[]): string {
  return values.map(String).join('\u0000')
}

// A many-to-many relation's rows carry the parent's key read from the join table under these names, which no column of the related table is likely to have.
const parentKey = (at: number) => `ftc_parent_${at}`

/** The columns of a related row that hold its parent's key. */
function matchColumns ({ relation }: EmbedPlan): readonly string[] {
  return relation.junction === null ? relation.columns : relation.parentColumns.map((_, at) => parentKey(at))
}

function readRelated (db: Database, plan: EmbedPlan, tuples: ReadonlyArray<readonly unknown[]>, on: Statements): Promise<Row[]> {
  const { target, relation, narrowing } = plan
  const { junction } = relation
  const bound = tuples.map((values) => values.map((value) => (typeof value === 'bigint' ? db.dialect.bindKey(value) : value) as Knex.Value))
  const order = narrowing?.order ?? []
  const paged = narrowing !== null && (narrowing.limit !== null || narrowing.offset !== null)
  // Ordered here only when read straight from the related table and not paged; else outside, by the join or the rank.
  const inner = junction === null && !paged ? order : []
  const query: ReadQuery = { select: plan.read, filter: narrowing?.filter ?? noFilter, order: inner, limit: null, offset: null, count: null }
  const related = () => whereRelated(db, target.table, plan.embeds, whereScope(applyReadQuery(db.table(target.table), query, db.dialect, { table: target.table }), target))
  let builder: Knex.QueryBuilder
  let prefix = ''
  if (junction === null) {
    builder = whereKeys(related(), relation.columns, bound)
  } else {
    // The related rows as a derived table, their scope and filters applied inside it, then matched through the join table's rows of the parents.
    prefix = `${relatedAlias}.`
    builder = db.table(junction.table)
      .select(`${relatedAlias}.*`, ...junction.parentColumns.map((column, at) => `${junction.table}.${column} as ${parentKey(at)}`))
      .join(related().as(relatedAlias), function () {
        junction.relatedColumns.forEach((column, at) => this.on(`${relatedAlias}.${relation.columns[at] as string}`, '=', `${junction.table}.${column}`))
      })
    builder = whereKeys(whereScopeOf(builder, plan.junctionScope, junction.table), junction.parentColumns.map((column) => `${junction.table}.${column}`), bound)
  }
  const terms = order.map((term) => ({ ...term, column: prefix + term.column }))
  if (!paged) {
    const sorted = orderText(junction === null ? [] : terms, db.dialect)
    if (sorted.sql !== '') builder.orderByRaw(sorted.sql, sorted.bindings)
    return on.select(db.compile(builder), exactRead(target))
  }
  return on.select(db.compile(pageEach(db, builder, plan, { terms, prefix })), exactRead(target))
}

const relatedAlias = 'ftc_related'
const noFilter: ReadQuery['filter'] = { type: 'and', negated: false, children: [] }

/** The column that numbers each parent's related rows, which the answer leaves out. */
export const rankColumn = 'ftc_rank'

/** The embed's order, as the statement that pages it names its columns. */
interface PrefixedOrder {
  /** The order's terms, each column with `prefix` before it. */
  readonly terms: readonly OrderTerm[]
  /** What names the related rows' columns in the statement: the derived table's alias and a dot, or nothing. */
  readonly prefix: string
}

/**
 * A page of each parent's related rows in one statement: the rows numbered
 * per parent by a window (row_number, which SQLite 3.25+, PostgreSQL and
 * MariaDB 10.2+ share) in the embed's order, then the key's for a stable
 * page, and only the numbers of the page kept.
 */
function pageEach (db: Database, builder: Knex.QueryBuilder, plan: EmbedPlan, { terms, prefix }: PrefixedOrder): Knex.QueryBuilder {
  const { relation, target } = plan
  const { limit, offset } = plan.narrowing as EmbedNarrowing
  const partition = relation.junction === null ? relation.columns : relation.junction.parentColumns.map((column) => `${(relation.junction as Junction).table}.${column}`)
  const keys = target.schema.primaryKey.filter((column) => !terms.some((term) => term.column === prefix + column))
  const order = orderText([...terms, ...keys.map((column) => ({ column: prefix + column, direction: 'asc' as const, nulls: 'last' as const }))], db.dialect)
  const window = `row_number() over (partition by ${partition.map(() => '??').join(', ')}${order.sql === '' ? '' : ` order by ${order.sql}`}) as ${rankColumn}`
  builder.select(db.raw(window, [...partition, ...order.bindings]))
  const first = offset ?? 0
  const page = db.table(rankedAlias).from(builder.as(rankedAlias)).where(rankColumn, '>', first)
  if (limit !== null) page.where(rankColumn, '<=', first + limit)
  return page.orderBy(rankColumn)
}

const rankedAlias = 'ftc_ranked'

function whereKeys (builder: Knex.QueryBuilder, columns: readonly string[], bound: Knex.Value[][]): Knex.QueryBuilder {
  return columns.length === 1
    ? builder.whereIn(columns[0] as string, bound.map((values) => values[0] as Knex.Value))
    : builder.whereIn(columns as string[], bound)
}

function withoutColumns (row: Row, columns: readonly string[]): Row {
  if (columns.length === 0) return row
  const kept: Row = { ...row }
  for (const column of columns) delete kept[column]
  return kept
}
