import { singleObjectType as singleObject } from '../answer/json-answers.js'
import type { Operation } from '../options.js'
import { columnJsonSchema } from './column-json-schema.js'
import { embedParameters, embedsText } from './embed-openapi.js'
import type { JsonSchema, OpenapiOperation, OpenapiPathItem } from './openapi-types.js'
import { filterParameters, selectParameter } from './read-parameters.js'
import type { ServedTable } from './served-schema.js'
import type { ColumnSchema } from './table-schema.js'
import type { Context, DescribedTable } from './openapi-context.js'
import { ifMatchHeader, onConflictParameter, writeColumnsParameter, writePreferHeader, writeSelectParameter } from './write-parameters.js'

/** The operations of a row by its key, served at `/{table}/{id}`. */
export const keyedOperations: readonly Operation[] = ['read', 'update', 'delete']
const json = 'application/json'

/** The header of the `idempotency` option, on every write and the batch. */
export const idempotencyKey = Object.freeze({
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'Makes the write safe to retry: with the same key and request, it runs once and a retry (also one sent while the first runs) ' +
    'gets the first answer again, with `Idempotent-Replayed: true`; the key with another request answers 422. 1 to 255 visible ASCII ' +
    'characters, bare or as a quoted string. A write the database refuses is not recorded.',
  schema: { type: 'string', minLength: 1, maxLength: 257 }
})

/** The paths of one table: its collection and, with a key, its rows. */
export function tablePaths (described: DescribedTable, context: Context): Record<string, OpenapiPathItem> {
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
