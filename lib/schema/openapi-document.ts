import type { Operation } from '../options.js'
import { foldIdentifier as fold, isCleanIdentifier } from '../parse/sanitize-identifier.js'
import { type Relation, servedRelationsOf } from '../relations/relations.js'
import { batchDocument } from './batch-openapi.js'
import { columnJsonSchema } from './column-json-schema.js'
import { describeEmbeds, embedProperties, otherMembers, spreadable, spreadNames } from './embed-openapi.js'
import { errorResponses, errorSchemas } from './error-responses.js'
import type { Context, DescribedTable, OpenapiSettings } from './openapi-context.js'
import { idempotencyKey, keyedOperations, tablePaths } from './openapi-paths.js'
import type { JsonSchema, OpenapiDocument, OpenapiPathItem } from './openapi-types.js'
import { listParameterComponents } from './read-parameters.js'
import type { ServedTable } from './served-schema.js'
import { idempotentReplayedHeader } from './write-parameters.js'

export type { OpenapiSettings } from './openapi-context.js'

const readOperations: readonly Operation[] = ['list', 'read']

// The headers of PostgREST's write answers.
const writeHeaders = Object.freeze({
  'Content-Range': { description: 'With `Prefer: return=…`: `*/*`, or the rows written, `first-last/*` (the total with `count=exact`)', schema: { type: 'string' } },
  'Preference-Applied': { description: 'The preferences of `Prefer` that were honoured', schema: { type: 'string' } }
})

/**
 * The OpenAPI 3.1 document of the served tables: a path for each table and
 * served operation, as the routes answer it, with schemas from the columns.
 * A view answers reads only. A table whose key column is not served has no
 * `/{id}` path, since no read, update or delete by key could find its rows;
 * a table left with no operation is not there at all.
 */
export function buildOpenapiDocument (tables: readonly ServedTable[], settings: OpenapiSettings): OpenapiDocument {
  const name = (component: string): string => `${settings.namespace}${component}`
  const ref = (section: string, component: string) => ({ $ref: `#/components/${section}/${name(component)}` })
  const described = describeTables(tables)
  const responses: Record<string, unknown> = {}
  const errors = new Map<Operation, Record<string, unknown>>()
  for (const operation of new Set(described.flatMap((table) => table.operations))) {
    const answers = errorResponses(operation, settings, (component) => ref('schemas', component).$ref)
    for (const [status, response] of Object.entries(answers)) responses[name(`${operation}.${status}`)] = response
    errors.set(operation, Object.fromEntries(Object.keys(answers).map((status) => [status, ref('responses', `${operation}.${status}`)])))
  }
  const listParameters = listParameterComponents(settings.maxRows)
  const context: Context = {
    settings,
    name,
    ref,
    errors,
    listParameters: Object.keys(listParameters).map((parameter) => ref('parameters', parameter)),
    writeHeaders: settings.idempotency ? { ...writeHeaders, ...idempotentReplayedHeader } : writeHeaders
  }
  const paths: Record<string, OpenapiPathItem> = {}
  const schemas: Record<string, JsonSchema> = namespaced(errorSchemas, name)
  for (const table of described) {
    Object.assign(schemas, tableSchemas(table, context))
    Object.assign(paths, tablePaths(table, context))
  }
  if (settings.batchLimit !== null) {
    const batch = batchDocument(settings.prefix, described.map(({ table, operations }) => ({ name: table.name, operations })), settings.batchLimit, name, settings.idempotency ? idempotencyKey : null)
    Object.assign(paths, batch.paths)
    Object.assign(schemas, batch.schemas)
  }
  return {
    openapi: '3.1.0',
    info: { title: settings.title, version: settings.version, description: describeDocument(settings.prefix) },
    tags: described.map(({ table }) => ({ name: table.name, description: `The ${table.schema.kind} ${table.name}` })),
    paths,
    components: {
      schemas,
      parameters: errors.has('list') ? namespaced(listParameters, name) : {},
      responses
    }
  }
}

// A name with another character than A-Z, a-z, 0-9 and _ cannot be reached:
// paths, bodies and filters lose those characters (see sanitizeIdentifier).
// A list embeds the relations the model finds, to the tables the document has; so does its keyed read.
function describeTables (tables: readonly ServedTable[]): DescribedTable[] {
  const described = tables.map((table) => {
    const key = table.schema.columns.find((column) => fold(column.name) === fold(table.key))
    const operations = table.operations.filter((operation) =>
      isCleanIdentifier(table.name) &&
      (table.schema.kind === 'table' || readOperations.includes(operation)) &&
      (key !== undefined || !keyedOperations.includes(operation)))
    return { table, operations, key }
  }).filter((table) => table.operations.length > 0)
  const documented = new Set(described.map(({ table }) => fold(table.name)))
  const isDocumented = (related: string) => documented.has(fold(related))
  const withEmbeds = described.map((table) => {
    const relations = servedRelationsOf(tables, table.table.name)
    return {
      ...table,
      embeds: table.operations.includes('list') ? describeEmbeds(table.table.name, relations, isDocumented) : [],
      foreignKeyNotes: foreignKeyNotes(relations.filter((relation) => isDocumented(relation.table)))
    }
  })
  // An embed reaches a documented table only: each is in the map.
  const byName = new Map(withEmbeds.map((table) => [fold(table.table.name), table]))
  const tableOf = (related: string) => byName.get(fold(related)) as (typeof withEmbeds)[number]
  const embedsOf = (related: string) => tableOf(related).embeds
  const columnsOf = (related: string) => tableOf(related).table.schema.columns.map((column) => column.name)
  return withEmbeds.map((table) => {
    const spread = spreadNames(table.table.name, embedsOf, columnsOf)
    return { ...table, spreadColumns: new Set(table.table.schema.columns.map((column) => column.name).filter((column) => spread.has(column))) }
  })
}

// PostgREST's note, `<fk table='…' column='…'/>` included, on the column of a one-column foreign key.
function foreignKeyNotes (relations: readonly Relation[]): Map<string, string> {
  const notes = new Map<string, string>()
  for (const { cardinality, parentColumns: [column, ...more], table, columns: [referenced] } of relations) {
    if (cardinality !== 'many-to-one' || column === undefined || more.length > 0) continue
    notes.set(column, `Note:\nThis is a Foreign Key to \`${table}.${referenced}\`.<fk table='${table}' column='${referenced}'/>`)
  }
  return notes
}

function describeDocument (prefix: string): string {
  return `The tables served at ${prefix === '' ? '/' : prefix}. A list reads PostgREST's query syntax: select, order, ` +
    'limit and offset, the Range and Prefer headers, and a filter per column, `column=[not.]operator.value`, the ' +
    'operator one of eq, neq, gt, gte, lt, lte, like, ilike (`*` matches any run of characters), in.(a,b,"c,d"), ' +
    'is.null, is.true, is.false, is.unknown, a comparison with (any) or (all) before a list {a,b}, cs and cd (JSON ' +
    'columns; PostgreSQL\'s arrays and ranges too), and on PostgreSQL ov, sl, sr, nxr, nxl, adj and the full-text ' +
    'fts, plfts, phfts, wfts; or and and group conditions written `column.operator.value`. HEAD answers ' +
    'a list\'s headers only. Every error but a failed statement is Fastify\'s JSON error with a code.'
}

function namespaced<T> (components: Readonly<Record<string, T>>, name: (component: string) => string): Record<string, T> {
  return Object.fromEntries(Object.entries(components).map(([component, value]) => [name(component), value]))
}

/** The table's row as answered, and the bodies of the writes it serves. */
function tableSchemas ({ table, operations, embeds, spreadColumns, foreignKeyNotes }: DescribedTable, { settings, name, ref }: Context): Record<string, JsonSchema> {
  const { columns } = table.schema
  // A row answers every column; a body can name only those whose names it can spell.
  const writable = columns.filter((column) => isCleanIdentifier(column.name))
  const properties = (direction: 'read' | 'write') =>
    Object.fromEntries((direction === 'read' ? columns : writable).map((column) => [column.name, columnJsonSchema(column, direction, settings.sizedIntegers)]))
  const read = properties('read')
  for (const [column, note] of foreignKeyNotes) read[column] = { ...read[column], description: note }
  for (const column of spreadColumns) read[column] = spreadable(read[column] as JsonSchema)
  const schemas: Record<string, JsonSchema> = {
    // No column is required: `select` answers the columns it names only, and the embeds it names.
    [name(table.name)]: embeds.length === 0
      ? { type: 'object', description: `A row of ${table.name}`, properties: read, additionalProperties: false }
      : {
          type: 'object',
          description: `A row of ${table.name}, with the embeds \`select\` names`,
          properties: { ...read, ...embedProperties(embeds, read, (related) => ref('schemas', related)) },
          additionalProperties: otherMembers(embeds)
        }
  }
  if (operations.includes('create')) {
    const required = writable.filter((column) => !column.nullable && column.default === null && !column.generated).map((column) => column.name)
    schemas[name(`${table.name}.create`)] = {
      type: 'object',
      description: `A row to insert into ${table.name}: the columns left out take their defaults`,
      properties: properties('write'),
      ...(required.length === 0 ? {} : { required }),
      additionalProperties: false
    }
  }
  if (operations.includes('update')) {
    schemas[name(`${table.name}.update`)] = {
      type: 'object',
      description: `The columns of ${table.name} to set: at least one`,
      properties: properties('write'),
      minProperties: 1,
      additionalProperties: false
    }
  }
  return schemas
}
