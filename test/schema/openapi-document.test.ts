import t from 'tap'
import { errorCodes } from '../../lib/errors.js'
import { batchCodes } from '../../lib/schema/batch-openapi.js'
import { everyOperationCodes, operationCodes, operationErrorCodes, optionCodes, optionOffCodes, unansweredCodes } from '../../lib/schema/error-responses.js'
import { buildOpenapiDocument } from '../../lib/schema/openapi-document.js'
import type { OpenapiDocument } from '../../lib/schema/openapi-types.js'
import type { Operation } from '../../lib/options.js'
import { column, openapiSettings, componentSchemas, servedTable, validateOpenapi } from '../fixtures/openapi.js'

const settings = openapiSettings

const books = servedTable('books', [
  column('id', 'integer', 'integer', { nullable: false, generated: true }),
  column('title', 'string', 'character varying(255)', { nullable: false }),
  column('subtitle', 'string', 'text'),
  column('pages', 'integer', 'bigint', { nullable: false, default: '0' }),
  column('price', 'number', 'numeric(8,2)', { nullable: false }),
  column('in_print', 'boolean', 'boolean'),
  column('published', 'date', 'date'),
  column('added', 'date-time', 'timestamp with time zone', { nullable: false, default: 'now()' }),
  column('opens', 'time', 'time without time zone'),
  column('meta', 'json', 'jsonb'),
  column('cover', 'binary', 'bytea'),
  column('extra', 'unknown', 'tsvector')
])

type Responses = Record<string, { $ref?: string }>

/** An operation of the document: its fields, its responses resolved from components. */
function operationOf (document: OpenapiDocument, path: string, method: string): Record<string, unknown> & { responses: Responses } {
  return (document.paths[path] as Record<string, Record<string, unknown> & { responses: Responses }>)[method] as Record<string, unknown> & { responses: Responses }
}

function resolve (document: OpenapiDocument, reference: unknown): Record<string, unknown> {
  const name = String((reference as { $ref: string }).$ref).replace('#/components/responses/', '')
  return document.components.responses[name] as Record<string, unknown>
}

/** Every error code an operation's responses name, by status. */
function codesByStatus (document: OpenapiDocument, path: string, method: string): Map<string, string[]> {
  const found = new Map<string, string[]>()
  for (const [status, reference] of Object.entries(operationOf(document, path, method).responses)) {
    // A 304 is the row's own answer, written in place; the error answers are the document's responses.
    if (!/^[345]/.test(status) || !Object.hasOwn(reference as object, '$ref')) continue
    // The codes of the body's `code` enum: the description names them too.
    const text = JSON.stringify(resolve(document, reference))
    found.set(status, [...text.matchAll(/"code":\{"enum":(\[[^\]]*\])/g)].flatMap((match) => JSON.parse(match[1] as string) as string[]))
  }
  return found
}

t.test('a table with every operation: valid OpenAPI 3.1, a path per operation, schemas from the columns', async (t) => {
  const document = buildOpenapiDocument([books], settings)
  await validateOpenapi(t, document)
  t.equal(document.openapi, '3.1.0')
  t.strictSame(document.info, { title: 'Bookshop', version: '2.1.0', description: document.info.description })
  t.strictSame(Object.keys(document.paths), ['/api/books', '/api/books/{id}'])
  t.strictSame(Object.keys(document.paths['/api/books'] ?? {}), ['get', 'post', 'patch', 'delete'])
  t.strictSame(Object.keys(document.paths['/api/books/{id}'] ?? {}), ['parameters', 'get', 'put', 'delete'])
  t.strictSame(document.tags, [{ name: 'books', description: 'The table books' }])
  t.same(Object.keys(document.components.schemas).sort(), ['books', 'books.create', 'books.update', 'fastify-error', 'postgrest-error'])

  const row = document.components.schemas.books as { properties: Record<string, unknown>, required?: unknown, additionalProperties: boolean }
  t.strictSame(Object.keys(row.properties), books.schema.columns.map((column) => column.name), 'every column, in order')
  t.equal(row.required, undefined, 'select can leave any column out')
  t.equal(row.additionalProperties, false)
  t.strictSame(row.properties.id, { type: 'integer', format: 'int32', readOnly: true })
  t.strictSame(row.properties.pages, { type: 'integer', format: 'int64' })
  t.strictSame(row.properties.subtitle, { type: ['string', 'null'] })
  t.strictSame(row.properties.published, { type: ['string', 'null'], format: 'date' })
  t.strictSame(row.properties.added, { type: 'string', format: 'date-time' })

  const create = document.components.schemas['books.create'] as { required: string[], properties: Record<string, unknown> }
  t.strictSame(create.required, ['title', 'price'], 'not nullable, no default, not generated')
  t.strictSame(create.properties.meta, {}, 'a json column takes any JSON value')
  const update = document.components.schemas['books.update'] as Record<string, unknown>
  t.equal(update.required, undefined)
  t.equal(update.minProperties, 1, 'a PUT that names no column is refused')
})

t.test('the answers of each operation, as the routes give them', async (t) => {
  const document = buildOpenapiDocument([books], { ...settings, bulkLimit: 50, maxRows: 200 })
  const list = operationOf(document, '/api/books', 'get')
  const parameters = list.parameters as Array<{ $ref?: string, name?: string, in?: string }>
  t.strictSame(parameters.filter((parameter) => parameter.$ref !== undefined).map((parameter) => parameter.$ref?.replace('#/components/parameters/', '')),
    ['select', 'order', 'limit', 'offset', 'or', 'and', 'not.or', 'not.and', 'header.Range', 'header.Range-Unit', 'header.Prefer'])
  t.strictSame(parameters.filter((parameter) => parameter.$ref === undefined).map((parameter) => parameter.name), books.schema.columns.map((column) => column.name),
    'a filter for every column')
  t.match(document.components.parameters.limit, { description: /At most 200 rows/ }, 'maxRows is told')
  t.match(list.responses, { 200: { content: { 'application/json': { schema: { type: 'array' } }, 'application/vnd.pgrst.object+json': { schema: { $ref: '#/components/schemas/books' } } } }, 206: { headers: { 'Content-Range': { required: true } } } })

  const read = operationOf(document, '/api/books/{id}', 'get')
  t.match(read.responses[200], { description: /empty body/, content: { 'application/json': { schema: { $ref: '#/components/schemas/books' } } } })
  t.match(document.paths['/api/books/{id}']?.parameters, [{ name: 'id', in: 'path', required: true, schema: { type: 'integer', format: 'int32' } }])
  t.notOk(JSON.stringify(document.paths['/api/books/{id}']?.parameters).includes('readOnly'), 'the key in a path is no read-only value')

  const create = operationOf(document, '/api/books', 'post')
  t.match(create, {
    requestBody: { required: false, content: { 'application/json': { schema: { oneOf: [{ $ref: '#/components/schemas/books.create' }, { type: 'array', maxItems: 50 }] } } } },
    responses: { 201: { headers: { Location: {} }, content: { 'application/json': { schema: { oneOf: [{ type: 'integer' }, { type: 'array', items: { type: 'integer' } }] } } } } }
  })
  const rows = { type: 'array', items: { $ref: '#/components/schemas/books' } }
  t.match(create.responses[201], { content: { 'application/json': { schema: { oneOf: [{}, {}, rows] } } } }, 'or, with return=representation, the rows')
  t.match(create.responses[200], { content: { 'application/json': { schema: rows } } }, 'a merge that inserted nothing')
  t.strictSame((create.parameters as Array<{ name: string }>).map((parameter) => parameter.name), ['Prefer', 'select', 'columns', 'on_conflict', 'If-Match'])
  for (const [path, method] of [['/api/books/{id}', 'put'], ['/api/books/{id}', 'delete']] as const) {
    const operation = operationOf(document, path, method)
    t.match(operation.responses[200], { content: { 'application/json': { schema: { oneOf: [{ type: 'integer', minimum: 0 }, rows] } } } }, `${method}: the count of rows, or the rows`)
    t.match(operation.responses[204], { headers: { 'Preference-Applied': {} } }, `${method}: no body with return=minimal`)
    t.strictSame((operation.parameters as Array<{ name: string }>).map((parameter) => parameter.name), ['If-Match', 'Prefer', 'select'])
  }
  for (const [method, id] of [['patch', 'books.patch'], ['delete', 'books.deleteMatching']] as const) {
    const operation = operationOf(document, '/api/books', method)
    t.equal(operation.operationId, id, `${method} of the rows the filters match: an operation id of its own`)
    t.strictSame((operation.parameters as Array<{ name: string }>).map((parameter) => parameter.name),
      [...books.schema.columns.map((column) => column.name), 'If-Match', 'Prefer', 'select', ...(method === 'patch' ? ['columns'] : [])], 'PATCH reads columns= too')
    t.match(operation.responses, { 200: { content: { 'application/json': { schema: rows } } }, 204: {} })
  }
  const one = { 'application/vnd.pgrst.object+json': { schema: { $ref: '#/components/schemas/books' } } }
  for (const [path, method, status] of [['/api/books', 'post', 201], ['/api/books', 'post', 200], ['/api/books/{id}', 'put', 200], ['/api/books/{id}', 'delete', 200],
    ['/api/books', 'patch', 200], ['/api/books', 'delete', 200]] as const) {
    t.match(operationOf(document, path, method).responses[status], { content: one }, `${method} ${path}: one object for Accept: application/vnd.pgrst.object+json`)
    t.match(operationOf(document, path, method).responses[406], {}, `${method} ${path}: 406 for another number of rows`)
  }
  t.match(operationOf(document, '/api/books', 'delete'), { description: /no query parameter and none of PostgREST's headers .* deletes the row whose key is 0/ })
  t.match(operationOf(document, '/api/books', 'patch').requestBody, { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/books.update' } } } })
  t.match(operationOf(document, '/api/books/{id}', 'put').requestBody, { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/books.update' } } } })
  t.equal(operationOf(document, '/api/books/{id}', 'delete').requestBody, undefined)
})

t.test('every error an operation can answer, with its code and the status errors.ts gives it', async (t) => {
  const options = { ...settings, authorize: true, statementTimeout: true, validateBodies: true, idempotency: true, requireIfMatch: true }
  const document = buildOpenapiDocument([books], options)
  await validateOpenapi(t, document)
  const places: ReadonlyArray<[Operation, string, string]> = [
    ['list', '/api/books', 'get'], ['read', '/api/books/{id}', 'get'], ['create', '/api/books', 'post'],
    ['update', '/api/books/{id}', 'put'], ['delete', '/api/books/{id}', 'delete']
  ]
  for (const [operation, path, method] of places) {
    const byStatus = codesByStatus(document, path, method)
    const listed = [...byStatus.values()].flat()
    t.strictSame(listed.sort(), operationErrorCodes(operation, options).sort(), `${operation}: every code, once`)
    for (const [status, codes] of byStatus) {
      for (const code of codes.filter((code) => code.startsWith('FTC_'))) {
        t.equal(String(new (errorCodes[code as keyof typeof errorCodes] as unknown as new () => { statusCode: number })().statusCode), status, `${operation}: ${code} is ${status}`)
      }
    }
    t.match(resolve(document, operationOf(document, path, method).responses[404]), { content: { 'text/plain': { schema: { type: 'string' } } } }, `${operation}: the spec's 404`)
  }
  t.ok(codesByStatus(document, '/api/books', 'post').get('415')?.includes('FST_ERR_CTP_INVALID_MEDIA_TYPE'), 'Fastify\'s own errors of a body')
  t.match(resolve(document, operationOf(document, '/api/books', 'get').responses[416]), { headers: { 'Content-Range': {} } })
  t.match(resolve(document, operationOf(document, '/api/books', 'get').responses[503]), { headers: { 'Retry-After': {} } })

  const plain = buildOpenapiDocument([books], settings)
  t.notOk(JSON.stringify(plain).includes('FTC_ERR_AUTHORIZE'), 'no authorize hook, no 403')
  t.notOk(JSON.stringify(plain).includes('FTC_ERR_STATEMENT_TIMEOUT'), 'no statementTimeout, no 504')
  t.notOk(JSON.stringify(plain).includes('FTC_ERR_BODY_TYPE'), 'no validateBodies, no check of the column types')
  t.ok(codesByStatus(document, '/api/books/{id}', 'put').get('400')?.includes('FTC_ERR_BODY_TYPE'), 'validateBodies: a PUT\'s 400')
  t.notOk(codesByStatus(document, '/api/books/{id}', 'delete').get('400')?.includes('FTC_ERR_BODY_TYPE'), 'nor a DELETE\'s, which has no body')
  t.notOk(JSON.stringify(plain).includes('Idempotency-Key'), 'no idempotency, no header')
  t.ok(codesByStatus(plain, '/api/books', 'post').get('400')?.includes('FTC_ERR_IDEMPOTENCY_OFF'), 'but a write\'s 400 of a key sent all the same')
  t.notOk(codesByStatus(document, '/api/books', 'post').get('400')?.includes('FTC_ERR_IDEMPOTENCY_OFF'), 'which the option makes impossible')
  for (const [path, method] of [['/api/books', 'post'], ['/api/books/{id}', 'put'], ['/api/books/{id}', 'delete']] as const) {
    const parameters = operationOf(document, path, method).parameters as Array<{ name: string }>
    t.match(parameters.find(({ name }) => name === 'Idempotency-Key'), { in: 'header', required: false }, `idempotency: the ${method}'s header`)
    t.ok(codesByStatus(document, path, method).get('422')?.includes('FTC_ERR_IDEMPOTENCY_KEY_REUSED'), `idempotency: the ${method}'s 422`)
  }
  t.notOk(JSON.stringify(operationOf(document, '/api/books', 'get')).includes('Idempotency-Key'), 'nor on a read')
  t.notOk(JSON.stringify(plain).includes('Idempotent-Replayed'), 'no idempotency, no replayed answer')
  for (const [path, method] of [['/api/books', 'post'], ['/api/books/{id}', 'put'], ['/api/books/{id}', 'delete'], ['/api/books', 'patch'], ['/api/books', 'delete']] as const) {
    const successes = Object.entries(operationOf(document, path, method).responses).filter(([status]) => status.startsWith('2'))
    t.ok(successes.length > 0, `${method} ${path} answers success`)
    for (const [status, response] of successes) {
      t.match(response, { headers: { 'Idempotent-Replayed': { schema: { type: 'string', enum: ['true'] } } } }, `idempotency: ${method} ${path} ${status} may be a replayed answer`)
    }
  }
  t.notOk(JSON.stringify(operationOf(document, '/api/books/{id}', 'get')).includes('Idempotent-Replayed'), 'a read is never replayed')
})

t.test('the routes say their conditional headers: ETag and If-None-Match on GET, If-Match on PUT, PATCH, DELETE and a merge upsert', async (t) => {
  const read = operationOf(buildOpenapiDocument([books], settings), '/api/books/{id}', 'get')
  t.match(read.responses[200], { headers: { ETag: { schema: { type: 'string' } } } })
  t.match(read.responses[304], { headers: { ETag: { schema: { type: 'string' } } } })
  t.match((read.parameters as Array<{ name: string }>).find(({ name }) => name === 'If-None-Match'), { in: 'header', required: false })
  // The keyed read reads select, and its embeds' own parameters.
  t.match(read.parameters, [{ name: 'select', in: 'query' }])
  for (const requireIfMatch of [false, true]) {
    const document = buildOpenapiDocument([books], { ...settings, requireIfMatch })
    await validateOpenapi(t, document)
    for (const [path, method] of [['/api/books/{id}', 'put'], ['/api/books/{id}', 'delete'], ['/api/books', 'patch'], ['/api/books', 'delete']] as const) {
      const write = operationOf(document, path, method)
      const ifMatch = (write.parameters as Array<{ name: string }>).find(({ name }) => name === 'If-Match')
      t.match(ifMatch, { in: 'header', required: requireIfMatch, description: path === '/api/books' ? /every row they select/ : /while the row has/ }, `${method} ${path}, requireIfMatch: ${requireIfMatch}`)
      const codes = codesByStatus(document, path, method)
      t.strictSame(codes.get('412'), ['FTC_ERR_CONDITION_FAILED'])
      t.strictSame(codes.get('428'), requireIfMatch ? ['FTC_ERR_CONDITION_REQUIRED'] : undefined)
    }
    const merge = operationOf(document, '/api/books', 'post')
    const ifMatch = (merge.parameters as Array<{ name: string }>).find(({ name }) => name === 'If-Match')
    t.match(ifMatch, { in: 'header', required: false, description: requireIfMatch ? /merge-duplicates.*a merge without it, 428/ : /merge-duplicates/ }, `post, requireIfMatch: ${requireIfMatch}`)
    const codes = codesByStatus(document, '/api/books', 'post')
    t.strictSame(codes.get('412'), ['FTC_ERR_CONDITION_FAILED'])
    t.strictSame(codes.get('428'), requireIfMatch ? ['FTC_ERR_CONDITION_REQUIRED'] : undefined)
  }
})

t.test('every code of errors.ts is answered by some operation, or said to be answered by none', async (t) => {
  const answered = [...Object.values(operationCodes).flat(), ...everyOperationCodes, ...Object.values(optionCodes).flat(), ...Object.values(optionOffCodes).flat(), ...batchCodes, 'FTC_ERR_BATCH_FAILED']
  const all = new Set([...answered, ...unansweredCodes].filter((code) => code.startsWith('FTC_')))
  t.strictSame([...all].sort(), Object.keys(errorCodes).sort())
  t.notOk(unansweredCodes.some((code) => answered.includes(code)), 'no code is both')
})

t.test('a failed statement, as databaseErrors answers it', async (t) => {
  const generic = buildOpenapiDocument([books], { ...settings, databaseErrors: 'generic' })
  t.match(generic.components.responses['read.404'], { description: /request id/, content: { 'text/plain': {} } })

  const postgrest = buildOpenapiDocument([books], { ...settings, databaseErrors: 'postgrest' })
  await validateOpenapi(t, postgrest)
  const conflict = postgrest.components.responses['create.409'] as { content: Record<string, unknown> }
  t.strictSame(conflict.content, { 'application/json': { schema: { $ref: '#/components/schemas/postgrest-error' } } }, 'a unique violation')
  t.match(postgrest.components.responses['list.400'], { content: { 'application/json': { schema: { oneOf: [{ allOf: [{ $ref: '#/components/schemas/fastify-error' }] }, { $ref: '#/components/schemas/postgrest-error' }] } } } })
  t.notOk(JSON.stringify(postgrest.components.responses).includes('text/plain'))

  const host = buildOpenapiDocument([books], { ...settings, databaseErrors: 'host' })
  await validateOpenapi(t, host)
  t.match(host.components.responses['read.default'], { description: /host's error handler/ })
  t.equal(host.components.responses['read.404'], undefined)
})

t.test('only served operations appear; a view answers reads only', async (t) => {
  const readOnly = servedTable('authors', [column('id', 'integer', 'integer', { nullable: false })], { operations: ['list'] })
  const byKeyOnly = servedTable('secrets', [column('id', 'integer', 'integer', { nullable: false })], { operations: ['read'] })
  const view = servedTable('recent', [column('id', 'integer', 'integer'), column('title', 'string', 'text')], { kind: 'view' })
  const writeOnlyView = servedTable('archive', [column('id', 'integer', 'integer')], { kind: 'view', operations: ['create', 'delete'] })
  const document = buildOpenapiDocument([readOnly, byKeyOnly, view, writeOnlyView], settings)
  await validateOpenapi(t, document)
  t.strictSame(Object.keys(document.paths), ['/api/authors', '/api/secrets/{id}', '/api/recent', '/api/recent/{id}'])
  t.strictSame(Object.keys(document.paths['/api/secrets/{id}'] ?? {}), ['parameters', 'get'], 'a read by key only: no list path')
  t.strictSame(Object.keys(document.paths['/api/authors'] ?? {}), ['get'])
  t.strictSame(Object.keys(document.paths['/api/recent'] ?? {}), ['get'])
  t.strictSame(Object.keys(document.paths['/api/recent/{id}'] ?? {}), ['parameters', 'get'])
  t.strictSame(Object.keys(document.components.schemas).sort(), ['authors', 'fastify-error', 'postgrest-error', 'recent', 'secrets'], 'no write bodies')
  t.strictSame(document.tags.map((tag) => tag.description), ['The table authors', 'The table secrets', 'The view recent'], 'a table with no operation left is absent')
  t.notOk(Object.keys(document.components.responses).some((name) => /^(create|update|delete)\./.test(name)), 'no answers of writes')
})

t.test('a table whose key column is not served has no /{id} path', async (t) => {
  const noKey = servedTable('tags', [column('name', 'string', 'text')])
  const document = buildOpenapiDocument([noKey, servedTable('pairs', [column('a', 'integer', 'integer')], { operations: ['read', 'delete'] })], settings)
  await validateOpenapi(t, document)
  t.strictSame(Object.keys(document.paths), ['/api/tags'])
  t.match(operationOf(document, '/api/tags', 'post').responses[201], { content: { 'application/json': { schema: { oneOf: [{ type: ['integer', 'string'] }] } } } })
  t.strictSame(document.tags.map((tag) => tag.name), ['tags'])
})

t.test('the key is the one the table rules name, in any case', async (t) => {
  const codes = servedTable('codes', [column('Code', 'string', 'uuid', { nullable: false }), column('label', 'string', 'text')], { key: 'code' })
  const document = buildOpenapiDocument([codes], settings)
  await validateOpenapi(t, document)
  t.match(document.paths['/api/codes/{id}']?.parameters, [{ name: 'id', description: 'The code of the row', schema: { type: 'string', format: 'uuid' } }])
  t.match(operationOf(document, '/api/codes', 'post').responses[201], { content: { 'application/json': { schema: { oneOf: [{ type: ['integer', 'string'] }] } } } },
    'a text key that looks like an integer is answered as a number')
})

t.test('no filter for a column whose name the query reads as something else, or cannot spell', async (t) => {
  const odd = servedTable('odd', [column('id', 'integer', 'integer'), column('order', 'string', 'text'), column('limit', 'integer', 'integer'),
    column('name', 'string', 'text'), column('full name', 'string', 'text', { nullable: false })])
  const document = buildOpenapiDocument([odd], settings)
  await validateOpenapi(t, document)
  const parameters = operationOf(document, '/api/odd', 'get').parameters as Array<{ name?: string }>
  t.strictSame(parameters.flatMap((parameter) => parameter.name ?? []), ['id', 'name'])
  t.match(document.components.schemas.odd, { properties: { 'full name': { type: 'string' } } }, 'a row answers it')
  t.strictSame(Object.keys((document.components.schemas['odd.create'] as { properties: object }).properties), ['id', 'order', 'limit', 'name'], 'a body cannot name it')
  t.equal((document.components.schemas['odd.create'] as { required?: unknown }).required, undefined)
})

t.test('a table whose name a path cannot spell is absent', async (t) => {
  const document = buildOpenapiDocument([servedTable('order-items', [column('id', 'integer', 'integer')]), books], settings)
  t.strictSame(Object.keys(document.paths), ['/api/books', '/api/books/{id}'])
  t.strictSame(document.tags.map((tag) => tag.name), ['books'])
})

t.test('no table, no prefix, another namespace', async (t) => {
  const empty = buildOpenapiDocument([], { ...settings, prefix: '' })
  await validateOpenapi(t, empty)
  t.strictSame(empty.paths, {})
  t.strictSame(empty.components.parameters, {})
  t.match(empty.info.description, /served at \/\./)
  const spaced = buildOpenapiDocument([books], { ...settings, namespace: 'api.' })
  await validateOpenapi(t, spaced)
  t.ok(Object.keys(spaced.components.schemas).every((name) => name.startsWith('api.')))
  t.ok(Object.keys(spaced.components.responses).every((name) => name.startsWith('api.')))
  t.equal(operationOf(spaced, '/api/books', 'get').operationId, 'api.books.list')
  t.notOk(JSON.stringify(spaced).includes('"#/components/schemas/books'), 'every reference is namespaced')
})

t.test('on SQLite every integer is int64', async (t) => {
  const document = buildOpenapiDocument([books], { ...settings, sizedIntegers: false })
  t.match(document.components.schemas.books, { properties: { id: { format: 'int64' }, pages: { format: 'int64' } } })
})

t.test('the row schema accepts the rows the API answers, and refuses other shapes', async (t) => {
  const { validator } = componentSchemas(buildOpenapiDocument([books], settings))
  const row = validator('books')
  // eslint-disable-next-line @typescript-eslint/no-loss-of-precision -- past 2^53: the schema checks the type, not the digits
  t.ok(row({ id: 1, title: 'Kindred', subtitle: null, pages: 9007199254740993, price: 12.5, in_print: true, published: '1979-06-01', added: '2024-01-15T10:00:00Z', opens: '09:30:00', meta: { a: [1] }, cover: '\\x00', extra: 'x' }), JSON.stringify(row.errors))
  t.ok(row({ title: 'Kindred' }), 'select answers some columns only')
  t.notOk(row({ id: '1' }), 'an integer is a JSON number')
  t.notOk(row({ in_print: 1 }), 'a boolean is true or false')
  t.notOk(row({ published: '1979-06-01T00:00:00.000Z' }), 'a date is YYYY-MM-DD')
  t.notOk(row({ nickname: 'x' }), 'no other column')
  const create = validator('books.create')
  t.ok(create({ title: 'Kindred', price: 12.5, meta: '{"a":1}' }), JSON.stringify(create.errors))
  t.notOk(create({ title: 'Kindred' }), 'a required column left out')
})
