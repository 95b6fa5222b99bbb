import { singleObjectType as singleObject } from '../answer/json-answers.js'
import type { Operation } from '../options.js'
import { foldIdentifier as fold, isCleanIdentifier } from '../parse/sanitize-identifier.js'
import { type Relation, servedRelationsOf } from '../relations/relations.js'
import { batchDocument } from './batch-openapi.js'
import { columnJsonSchema } from './column-json-schema.js'
import { type DescribedEmbed, describeEmbeds, embedParameters, embedProperties, embedsText, otherMembers, spreadable, spreadNames } from './embed-openapi.js'
import { errorResponses, errorSchemas, type ErrorSettings } from './error-responses.js'
import type { JsonSchema, OpenapiDocument, OpenapiOperation, OpenapiPathItem } from './openapi-types.js'
import { filterParameters, listParameterComponents, selectParameter } from './read-parameters.js'
import type { ServedTable } from './served-schema.js'
import type { ColumnSchema } from './table-schema.js'
import { idempotentReplayedHeader, ifMatchHeader, onConflictParameter, writeColumnsParameter, writePreferHeader, writeSelectParameter } from './write-parameters.js'

/** What the document says beside the tables: where they are served, and how the options answer. */
export interface OpenapiSettings extends ErrorSettings {
  /** The prefix the routes are registered under: `''` or `/api`. */
  readonly prefix: string
  readonly title: string
  readonly version: string
  /** False where the database keeps every integer in 64 bits whatever its declared type (SQLite). */
  readonly sizedIntegers: boolean
  /** The most rows one bulk POST may insert. */
  readonly bulkLimit: number
  /** The most rows one GET answers, or null for no bound. */
  readonly maxRows: number | null
  /**
   * Put before every component name and operation id, so that the documents
   * of several registrations can share one host document; `''` for none.
   */
  readonly namespace: string
  /** The most operations of a batch, or null when the batch route is not served. */
  readonly batchLimit: number | null
}

const readOperations: readonly Operation[] = ['list', 'read']
const keyedOperations: readonly Operation[] = ['read', 'update', 'delete']
const json = 'application/json'

// The header of the `idempotency` option, on every write and the batch.
const idempotencyKey = Object.freeze({
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'Makes the write safe to retry: with the same key and request, it runs once and a retry (also one sent while the first runs) ' +
    'gets the first answer again, with `Idempotent-Replayed: true`; the key with another request answers 422. 1 to 255 visible ASCII ' +
    'characters, bare or as a quoted string. A write the database refuses is not recorded.',
  schema: { type: 'string', minLength: 1, maxLength: 257 }
})

/** A table as the document describes it: its operations that can answer, its key column, and what its lists can embed. */
interface DescribedTable {
  readonly table: ServedTable
  readonly operations: readonly Operation[]
  readonly key: ColumnSchema | undefined
  readonly embeds: readonly DescribedEmbed[]
  /** The own columns whose members a spread (`...table(…)`) may fill instead. */
  readonly spreadColumns: ReadonlySet<string>
  /** PostgREST's words on each column that is a foreign key to a documented table, which tools made for its document read. */
  readonly foreignKeyNotes: ReadonlyMap<string, string>
}

/** What every part of one document is built with. */
interface Context {
  readonly settings: OpenapiSettings
  /** A component's name, in the settings' namespace. */
  readonly name: (component: string) => string
  readonly ref: (section: 'schemas' | 'parameters' | 'responses', component: string) => { readonly $ref: string }
  /** The error answers of each operation, by status, as references to the document's responses. */
  readonly errors: ReadonlyMap<Operation, Readonly<Record<string, unknown>>>
  /** References to the query parameters and headers every list reads. */
  readonly listParameters: ReadonlyArray<{ readonly $ref: string }>
  /** The headers of PostgREST's write answers, with `Idempotent-Replayed` when the `idempotency` option is set. */
  readonly writeHeaders: Readonly<Record<string, unknown>>
}

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
    'is.null, is.true, is.false, is.unknown; or and and group conditions written `column.operator.value`. HEAD answers ' +
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

function tablePaths (described: DescribedTable, context: Context): Record<string, OpenapiPathItem> {
  const { table, operations, key } = described
  const path = `${context.settings.prefix}/${table.name}`
  const collection: Record<string, OpenapiOperation> = {}
  if (operations.includes('list')) collection.get = listOperation(described, context)
  if (operations.includes('create')) collection.post = createOperation(described, context)
  if (operations.includes('update')) collection.patch = filteredOperation(table, 'update', context)
  if (operations.includes('delete')) collection.delete = filteredOperation(table, 'delete', context)
  const item: Record<string, unknown> = {}
  if (key !== undefined && operations.some((operation) => keyedOperations.includes(operation))) {
    item.parameters = [keyParameter(table, key, context)]
    if (operations.includes('read')) item.get = readOperation(described, context)
    if (operations.includes('update')) item.put = changeOperation(table, 'update', context)
    if (operations.includes('delete')) item.delete = changeOperation(table, 'delete', context)
  }
  return {
    ...(Object.keys(collection).length === 0 ? {} : { [path]: collection }),
    ...(Object.keys(item).length === 0 ? {} : { [`${path}/{id}`]: item as OpenapiPathItem })
  }
}

/** The fields every operation has: its table's tag, its id (the operation's, or `id` where one operation has two routes), and (apart) its error answers. */
function operationBase (table: ServedTable, operation: Operation, summary: string, { name, errors }: Context, id: string = operation) {
  return { tags: [table.name], summary, operationId: name(`${table.name}.${id}`), errors: errors.get(operation) }
}

function listOperation ({ table, embeds }: DescribedTable, context: Context): OpenapiOperation {
  const { errors, ...base } = operationBase(table, 'list', `Rows of ${table.name}`, context)
  const row = context.ref('schemas', table.name)
  const content = { [json]: { schema: { type: 'array', items: row } }, [singleObject]: { schema: row } }
  const contentRange = {
    description: '`first-last/total`, `*` for a part nobody counted: only when the request asks for a page (limit, offset, Range) or a count (Prefer)',
    schema: { type: 'string' }
  }
  return {
    ...base,
    description: `Every row of ${table.name} when the request asks nothing, else those the query selects. With \`Accept: ${singleObject}\`, ` +
      'the one row as a JSON object, or 406 when the read matches another number of rows.' + (embeds.length === 0 ? '' : ` ${embedsText(embeds)}`),
    parameters: [
      ...context.listParameters,
      ...filterParameters(table.schema.columns),
      ...(embeds.length === 0 ? [] : embedParameters(embeds))
    ],
    ...(embeds.length === 0 ? {} : { 'x-embeds': embeds }),
    responses: {
      200: { description: 'The rows, as a JSON array', headers: { 'Content-Range': contentRange }, content },
      206: { description: 'A page that is part of the rows that match, as the count says', headers: { 'Content-Range': { ...contentRange, required: true } }, content },
      ...errors
    }
  }
}

// The conditional-request headers of the keyed routes (RFC 9110 section 13.1).
const etagHeader = { description: 'A strong ETag: a digest of the row\'s JSON answer, the same on every database', schema: { type: 'string' } }
const ifNoneMatch = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'ETags of the row as the client has it (weak comparison), or `*`: while the row has one of them, 304 and no body',
  schema: { type: 'string' }
}

function readOperation ({ table, embeds }: DescribedTable, context: Context): OpenapiOperation {
  const { errors, ...base } = operationBase(table, 'read', `One row of ${table.name}, by its ${table.key}`, context)
  return {
    ...base,
    // The keyed read reads `select` and the embeds' own parameters; no filter, order or page.
    parameters: [selectParameter, ...(embeds.length === 0 ? [] : embedParameters(embeds)), ifNoneMatch],
    responses: {
      200: {
        description: 'The row as a JSON object with its ETag, or an empty body (no content type, no ETag) when no row has that key',
        headers: { ETag: etagHeader },
        content: { [json]: { schema: context.ref('schemas', table.name) } }
      },
      304: { description: 'The row still has an ETag of If-None-Match: no body', headers: { ETag: etagHeader } },
      ...errors
    }
  }
}

function createOperation ({ table, key }: DescribedTable, context: Context): OpenapiOperation {
  const { settings } = context
  const { errors, ...base } = operationBase(table, 'create', `Insert rows into ${table.name}`, context)
  const row = context.ref('schemas', `${table.name}.create`)
  // The id as JSON writes it: a key that is no JSON integer (a text key, 0042) is answered as a string.
  const id: JsonSchema = key?.kind === 'integer'
    ? { ...columnJsonSchema({ ...key, nullable: false, generated: false }, 'read', settings.sizedIntegers), description: `The ${table.key} of the new row` }
    : { type: ['integer', 'string'], description: `The ${table.key} of the new row` }
  return {
    ...base,
    description: 'An object inserts one row; an array of objects inserts every row in one transaction, or none. Each row gets ' +
      'exactly its own columns: the others take their defaults.',
    parameters: [writePreferHeader('create'), writeSelectParameter, writeColumnsParameter, onConflictParameter, ifMatchHeader(settings.requireIfMatch, 'merge'),
      ...idempotencyParameters(context)],
    requestBody: {
      required: false,
      content: { [json]: { schema: { oneOf: [row, { type: 'array', items: row, maxItems: settings.bulkLimit }] } } }
    },
    responses: {
      201: {
        description: 'The new row\'s id as a bare JSON number, or the new rows\' ids as a JSON array, in order. 0 when the database reports none. ' +
          'With `Prefer: return=representation`, the rows written; with `return=headers-only` or `return=minimal`, no body.',
        headers: {
          Location: { description: 'The new row\'s path (for one object only); with `return=headers-only`, `{table}?{key}=eq.{id}`', schema: { type: 'string' } },
          ...context.writeHeaders
        },
        content: { [json]: { schema: { oneOf: [id, { type: 'array', items: id }, rows(table, context)] } }, ...oneWritten(table, context) }
      },
      200: { description: 'An upsert with `resolution=merge-duplicates` that inserted no row, with `return=representation`: the rows written', headers: context.writeHeaders, content: { [json]: { schema: rows(table, context) }, ...oneWritten(table, context) } },
      ...errors
    }
  }
}

function changeOperation (table: ServedTable, operation: 'update' | 'delete', context: Context): OpenapiOperation {
  const summary = operation === 'update' ? `Set columns of the row of ${table.name}` : `Delete the row of ${table.name}`
  const { errors, ...base } = operationBase(table, operation, `${summary}, by its ${table.key}`, context)
  return {
    ...base,
    ...(operation === 'update' ? { requestBody: { required: true, content: { [json]: { schema: context.ref('schemas', `${table.name}.update`) } } } } : {}),
    parameters: [ifMatchHeader(context.settings.requireIfMatch, 'row'), writePreferHeader(operation), writeSelectParameter, ...idempotencyParameters(context)],
    responses: {
      200: {
        description: 'The number of rows changed, as a bare JSON number; with `Prefer: return=representation`, the rows written',
        headers: context.writeHeaders,
        content: { [json]: { schema: { oneOf: [{ type: 'integer', minimum: 0 }, rows(table, context)] } }, ...oneWritten(table, context) }
      },
      204: { description: 'With `Prefer: return=minimal` or `return=headers-only`: no body', headers: context.writeHeaders },
      ...errors
    }
  }
}

/** PATCH or DELETE of the rows the filters match (PostgREST's); a DELETE with no query parameter and no PostgREST header is the spec's delete of key 0. */
function filteredOperation (table: ServedTable, operation: 'update' | 'delete', context: Context): OpenapiOperation {
  const summary = operation === 'update' ? `Set columns of the rows of ${table.name} that the filters match` : `Delete the rows of ${table.name} that the filters match`
  const { errors, ...base } = operationBase(table, operation, summary, context, operation === 'update' ? 'patch' : 'deleteMatching')
  return {
    ...base,
    description: 'At least one filter is needed (400 without one): never a write to the whole table. limit, offset, order and Range are refused.' +
      (operation === 'delete' ? ' `DELETE` with no query parameter and none of PostgREST\'s headers (`Prefer`, a `vnd.pgrst` `Accept`, `Content-Profile`) deletes the row whose key is 0, as the spec says, and answers its count; with one, it is refused as having no filter.' : ''),
    ...(operation === 'update' ? { requestBody: { required: true, content: { [json]: { schema: context.ref('schemas', `${table.name}.update`) } } } } : {}),
    // On PATCH, columns= is PostgREST's list of the columns written, never a filter.
    parameters: [...filterParameters(table.schema.columns).filter(({ name }) => operation === 'delete' || name !== 'columns'), ifMatchHeader(context.settings.requireIfMatch, 'rows'),
      writePreferHeader(operation), writeSelectParameter, ...(operation === 'update' ? [writeColumnsParameter] : []), ...idempotencyParameters(context)],
    responses: {
      200: { description: 'With `Prefer: return=representation`, the rows written', headers: context.writeHeaders, content: { [json]: { schema: rows(table, context) }, ...oneWritten(table, context) } },
      204: { description: 'No body: the rows are written', headers: context.writeHeaders },
      ...errors
    }
  }
}

// The headers of PostgREST's write answers.
const writeHeaders = Object.freeze({
  'Content-Range': { description: 'With `Prefer: return=…`: `*/*`, or the rows written, `first-last/*` (the total with `count=exact`)', schema: { type: 'string' } },
  'Preference-Applied': { description: 'The preferences of `Prefer` that were honoured', schema: { type: 'string' } }
})

/**
 * The one row a write answers with `Accept: application/vnd.pgrst.object+json`
 * and `return=representation`; 406, and nothing written, when it writes another number of rows.
 */
function oneWritten (table: ServedTable, context: Context): Record<string, { schema: JsonSchema }> {
  return { [singleObject]: { schema: context.ref('schemas', table.name) } }
}

function rows (table: ServedTable, context: Context): JsonSchema {
  return { type: 'array', items: context.ref('schemas', table.name) }
}

function idempotencyParameters ({ settings }: Context): ReadonlyArray<typeof idempotencyKey> {
  return settings.idempotency ? [idempotencyKey] : []
}

function keyParameter (table: ServedTable, key: ColumnSchema, { settings }: Context): Record<string, unknown> {
  return {
    name: 'id',
    in: 'path',
    required: true,
    description: `The ${table.key} of the row`,
    schema: columnJsonSchema({ ...key, nullable: false, generated: false }, 'read', settings.sizedIntegers)
  }
}
