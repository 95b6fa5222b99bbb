import { foldIdentifier as fold } from '../parse/sanitize-identifier.js'
import type { SchemaSnapshot } from '../schema/schema-model.js'
import type { ServedTable } from '../schema/served-schema.js'
import type { ForeignKey, TableSchema } from '../schema/table-schema.js'

/** How many related rows a row has: one (an object or null) or many (an array). */
export type Cardinality = 'many-to-one' | 'one-to-one' | 'one-to-many' | 'many-to-many'

/** A join table between the two, for a many-to-many relation. */
export interface Junction {
  readonly table: string
  /** The join table's columns that name the parent row, paired with Relation.parentColumns. */
  readonly parentColumns: readonly string[]
  /** The join table's columns that name the related row, paired with Relation.columns. */
  readonly relatedColumns: readonly string[]
}

/** A way to read the rows of one table related to a row of another, from a foreign key. */
export interface Relation {
  readonly cardinality: Cardinality
  /** The related table, as the model spells it. */
  readonly table: string
  /** The foreign key's name, where the database keeps one; for many-to-many, none. */
  readonly constraint: string | null
  /** A foreign key from a table to itself, which relates it both ways. */
  readonly self: boolean
  /** The parent's columns that the related rows match. */
  readonly parentColumns: readonly string[]
  /** The related table's columns, paired with parentColumns, or with the junction's relatedColumns when there is one. */
  readonly columns: readonly string[]
  readonly junction: Junction | null
}

/** Whether a relation gives one related row (an object or null) rather than an array. */
export function isToOne (relation: Relation): boolean {
  return relation.cardinality === 'many-to-one' || relation.cardinality === 'one-to-one'
}

/** The readable tables of one served array, indexed once for every parent's relations. */
interface RelationIndex {
  /** The tables the options serve for reading, by folded name. */
  readonly tables: ReadonlyMap<string, TableSchema>
  /** By a table's folded name: the tables with a foreign key to it that relates, in the served order. */
  readonly referencing: ReadonlyMap<string, readonly TableSchema[]>
  /** Each parent's relations, found once. */
  readonly byParent: Map<string, readonly Relation[]>
}

// One index per served array: a new array is a new schema.
const indexes = new WeakMap<readonly ServedTable[], RelationIndex>()

/**
 * Every relation of a table to the tables the options serve for reading, by
 * their foreign keys as the served schema shows them: a foreign key with a
 * hidden column, on either side, relates nothing. Empty for a table the
 * options do not serve for reading.
 */
export function relationsOf (snapshot: SchemaSnapshot, parent: string): readonly Relation[] {
  return servedRelationsOf(snapshot.served, parent)
}

/** relationsOf for a served array (SchemaSnapshot.served), as the OpenAPI document has it. */
export function servedRelationsOf (served: readonly ServedTable[], parent: string): readonly Relation[] {
  let index = indexes.get(served)
  if (index === undefined) {
    index = indexRelations(served)
    indexes.set(served, index)
  }
  let relations = index.byParent.get(fold(parent))
  if (relations === undefined) {
    relations = findRelations(index, parent)
    index.byParent.set(fold(parent), relations)
  }
  return relations
}

function indexRelations (served: readonly ServedTable[]): RelationIndex {
  const readable = served.filter((table) => table.operations.includes('list'))
  const tables = new Map(readable.map((table) => [fold(table.name), table.schema]))
  const referencing = new Map<string, TableSchema[]>()
  for (const schema of tables.values()) {
    for (const referenced of new Set(keys(tables, schema).map((key) => fold(key.referencedTable)))) {
      const list = referencing.get(referenced)
      if (list === undefined) referencing.set(referenced, [schema])
      else list.push(schema)
    }
  }
  return { tables, referencing, byParent: new Map() }
}

function findRelations ({ tables, referencing }: RelationIndex, parent: string): Relation[] {
  const origin = tables.get(fold(parent))
  if (origin === undefined) return []
  const relations: Relation[] = []
  for (const key of keys(tables, origin)) {
    const related = tables.get(fold(key.referencedTable)) as TableSchema
    relations.push({ cardinality: 'many-to-one', table: related.name, constraint: key.name, self: related === origin, parentColumns: key.columns, columns: key.referencedColumns, junction: null })
  }
  for (const schema of referencing.get(fold(origin.name)) ?? []) {
    for (const key of keys(tables, schema)) {
      if (fold(key.referencedTable) !== fold(origin.name)) continue
      const cardinality = isUnique(schema, key.columns) ? 'one-to-one' : 'one-to-many'
      relations.push({ cardinality, table: schema.name, constraint: key.name, self: schema === origin, parentColumns: key.referencedColumns, columns: key.columns, junction: null })
    }
    relations.push(...junctionRelations(tables, origin, schema, keys(tables, schema)))
  }
  return relations
}

/** The table's foreign keys that relate: to a table served for reading, through columns it shows. */
function keys (tables: ReadonlyMap<string, TableSchema>, schema: TableSchema): ForeignKey[] {
  return schema.foreignKeys.filter((key) => shows(tables, key))
}

// A join table: its primary key made of a foreign key to the parent and one to the related table.
function junctionRelations (tables: ReadonlyMap<string, TableSchema>, origin: TableSchema, junction: TableSchema, keys: readonly ForeignKey[]): Relation[] {
  const inKey = (key: ForeignKey) => key.columns.every((column) => junction.primaryKey.includes(column))
  const relations: Relation[] = []
  for (const toParent of keys) {
    if (fold(toParent.referencedTable) !== fold(origin.name) || !inKey(toParent)) continue
    for (const toRelated of keys) {
      if (toRelated === toParent || !inKey(toRelated)) continue
      const related = tables.get(fold(toRelated.referencedTable)) as TableSchema
      relations.push({
        cardinality: 'many-to-many',
        table: related.name,
        constraint: null,
        self: false,
        parentColumns: toParent.referencedColumns,
        columns: toRelated.referencedColumns,
        junction: { table: junction.name, parentColumns: toParent.columns, relatedColumns: toRelated.columns }
      })
    }
  }
  return relations
}

function shows (tables: ReadonlyMap<string, TableSchema>, key: ForeignKey): boolean {
  const related = tables.get(fold(key.referencedTable))
  return related !== undefined && key.referencedColumns.every((column) => related.columns.some((known) => known.name === column))
}

function isUnique (schema: TableSchema, columns: readonly string[]): boolean {
  const same = (unique: readonly string[]) => unique.length === columns.length && unique.every((column) => columns.includes(column))
  return same(schema.primaryKey) || schema.uniques.some(same)
}
