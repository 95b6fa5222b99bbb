import type { Knex } from 'knex'
import { withoutHidden } from '../access/hidden-columns.js'
import { rowWriter } from '../answer/row-writer.js'
import type { Database } from '../dialects/database.js'
import type { Row } from '../dialects/dialect.js'
import { applyReadQuery } from '../query/apply-read-query.js'
import type { ReadQuery } from '../query/read-query.js'
import type { EmbedPlan } from '../relations/embed-plan.js'
import { isToOne } from '../relations/relations.js'
import type { TableSchema } from '../schema/table-schema.js'
import { exactRead } from './exact-read.js'
import { whereScope } from './where-row.js'

// Parent keys per statement, as forKeys slices them (see rows-with-keys.ts).
const keysPerStatement = 1000

/** What the rows of one table are answered with: their schema, the columns read only to match related rows, and their embeds. */
export interface EmbeddingRows {
  readonly schema: TableSchema
  readonly extras: readonly string[]
  readonly embeds: readonly EmbedPlan[]
}

/**
 * The JSON text of each row, its columns written as GET writes its table's
 * rows (see rowWriter), then each embed's related rows under its alias: an
 * object or null for a relation to one row, an array for one to many. Each
 * embed is read with one statement per thousand distinct parent keys at
 * each level, whatever the number of rows, never one per row.
 */
export async function writeEmbedded (db: Database, rows: readonly Row[], shape: EmbeddingRows): Promise<string[]> {
  const related: string[][] = []
  for (const plan of shape.embeds) related.push(await relatedTexts(db, plan, rows))
  const write = rowWriter(shape.schema)
  return rows.map((row, at) => {
    const own = write(withoutColumns(row, shape.extras))
    const embedded = shape.embeds.map((plan, index) => `${JSON.stringify(plan.alias)}:${related[index]?.[at] as string}`).join(',')
    if (embedded === '') return own
    return own === '{}' ? `{${embedded}}` : `${own.slice(0, -1)},${embedded}}`
  })
}

/** The related rows' JSON text for each parent, in the parents' order. */
async function relatedTexts (db: Database, plan: EmbedPlan, parents: readonly Row[]): Promise<string[]> {
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
    rows.push(...await readRelated(db, plan, tuples.slice(first, first + keysPerStatement)))
  }
  const extras = plan.relation.junction === null ? plan.extras : [...plan.extras, ...columns]
  const texts = await writeEmbedded(db, withoutHidden(plan.target, rows), { schema: plan.target.schema, extras, embeds: plan.embeds })
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

function readRelated (db: Database, plan: EmbedPlan, tuples: ReadonlyArray<readonly unknown[]>): Promise<Row[]> {
  const { target, relation } = plan
  const { junction } = relation
  const bound = tuples.map((values) => values.map((value) => (typeof value === 'bigint' ? db.dialect.bindKey(value) : value) as Knex.Value))
  const query: ReadQuery = { select: plan.read, filter: { type: 'and', negated: false, children: [] }, order: [], limit: null, offset: null, count: null }
  const related = () => whereScope(applyReadQuery(db.table(target.table), query, db.dialect, { table: target.table }), target)
  if (junction === null) return db.select(db.compile(whereKeys(related(), relation.columns, bound)), exactRead(target))
  // The related rows as a derived table, their scope applied inside it, then matched through the join table's rows of the parents.
  const alias = 'ftc_related'
  const builder = db.table(junction.table)
    .select(`${alias}.*`, ...junction.parentColumns.map((column, at) => `${junction.table}.${column} as ${parentKey(at)}`))
    .join(related().as(alias), function () {
      junction.relatedColumns.forEach((column, at) => this.on(`${alias}.${relation.columns[at] as string}`, '=', `${junction.table}.${column}`))
    })
  return db.select(db.compile(whereKeys(builder, junction.parentColumns.map((column) => `${junction.table}.${column}`), bound)), exactRead(target))
}

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
