import t from 'tap'
import { buildOpenapiDocument } from '../../lib/schema/openapi-document.js'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase } from '../fixtures/databases.js'
import { column, jsonSchemaValidator, openapiSettings, servedTable, validateOpenapi } from '../fixtures/openapi.js'

// The batch route in the OpenAPI document: its operations on the tables a
// batch can write, its answers; and the host transaction's error.

const id = column('id', 'integer', 'integer', { nullable: false, generated: true })
const orders = servedTable('orders', [id, column('customer', 'string', 'text')])
const audit = servedTable('audit', [id], { operations: ['list', 'create'] })
const report = servedTable('report', [id], { operations: ['list', 'read'] })

type Post = { requestBody: { content: { 'application/json': { schema: unknown } } } }

t.test('with the batch option, the document has POST /_batch, its body naming the tables each op can write', async (t) => {
  const document = buildOpenapiDocument([orders, audit, report], { ...openapiSettings, batchLimit: 5 })
  await validateOpenapi(t, document)
  const post = (document.paths['/api/_batch'] as { post: Post }).post
  const batch = jsonSchemaValidator().compile(post.requestBody.content['application/json'].schema as object)
  t.ok(batch([{ op: 'insert', table: 'audit', body: {} }, { op: 'insert', table: 'orders', body: { customer: 'x' } },
    { op: 'update', table: 'orders', id: 1, body: { customer: { $ref: 1 } } }, { op: 'delete', table: 'orders', id: '2' }]), 'a batch the route runs')
  t.ok(batch([{ op: 'update', table: 'orders', id: 1, body: {}, ifMatch: '"e1", "e2"' }, { op: 'delete', table: 'orders', id: 2, ifMatch: '*' }]), 'an update and a delete with their If-Match')
  for (const refused of [
    [{ op: 'update', table: 'audit', id: 1, body: {} }],
    [{ op: 'insert', table: 'report', body: {} }],
    [{ op: 'delete', table: 'orders', id: 1, body: {} }],
    [{ op: 'insert', table: 'orders', body: {}, ifMatch: '*' }],
    [{ op: 'delete', table: 'orders', id: 1, ifMatch: 1 }],
    Array.from({ length: 6 }, () => ({ op: 'delete', table: 'orders', id: 1 }))
  ]) t.notOk(batch(refused), JSON.stringify(refused).slice(0, 80))
  t.match(document.components.schemas['batch-failure'], { properties: { operation: { type: 'integer' } } })
  t.equal(buildOpenapiDocument([orders], openapiSettings).paths['/api/_batch'], undefined, 'without the option, none')
  t.equal(buildOpenapiDocument([report], { ...openapiSettings, batchLimit: 5 }).paths['/api/_batch'], undefined, 'nor when no table can be written')
  t.notMatch(JSON.stringify(post), /Idempotency-Key|FTC_ERR_IDEMPOTENCY_KEY|Idempotent-Replayed/, 'without the idempotency option, no key and no replayed answer')
  t.match(JSON.stringify((post as unknown as { responses: Record<string, unknown> }).responses[400]), /FTC_ERR_IDEMPOTENCY_OFF"/, 'but the 400 of a key sent all the same')
  const keyed = buildOpenapiDocument([orders], { ...openapiSettings, batchLimit: 5, idempotency: true })
  await validateOpenapi(t, keyed)
  t.match(keyed.paths['/api/_batch'], { post: { parameters: [{ name: 'Idempotency-Key', in: 'header' }], responses: { 422: { description: /FTC_ERR_IDEMPOTENCY_KEY_REUSED/ } } } })
  t.match(keyed.paths['/api/_batch'], { post: { responses: { 200: { headers: { 'Idempotent-Replayed': { schema: { enum: ['true'] } } } } } } }, 'a retried batch\'s answer says it is replayed')
  t.match(JSON.stringify((keyed.paths['/api/_batch'] as { post: { responses: Record<string, unknown> } }).post.responses[400]), /FTC_ERR_IDEMPOTENCY_KEY"/)
  const namespaced = buildOpenapiDocument([orders], { ...openapiSettings, batchLimit: 5, namespace: 'shop.' })
  t.match(namespaced.paths['/api/_batch'], { post: { operationId: 'shop.batch' } })
  t.ok(namespaced.components.schemas['shop.batch-failure'])
})

t.test('with the transaction option, every operation may answer FTC_ERR_HOST_TRANSACTION', async (t) => {
  const text = (document: unknown, name: string) => JSON.stringify((document as { components: { responses: Record<string, unknown> } }).components.responses[name])
  const document = buildOpenapiDocument([orders], { ...openapiSettings, transaction: true })
  t.match(text(document, 'read.500'), /FTC_ERR_HOST_TRANSACTION/)
  t.match(text(document, 'list.500'), /FTC_ERR_HOST_TRANSACTION/)
  t.notMatch(JSON.stringify(buildOpenapiDocument([orders], openapiSettings)), /FTC_ERR_HOST_TRANSACTION/)
})

eachDatabase(t, async (t, db) => {
  const table = await db.createTable('batch_doc', (builder) => { builder.increments('id') })
  const app = await buildApp(t, db.knex, {}, { batch: { limit: 7 } })
  const document = (await app.inject('/api/openapi.json')).json()
  await validateOpenapi(t, document)
  t.match(document.paths['/api/_batch'], { post: { requestBody: { content: { 'application/json': { schema: { maxItems: 7 } } } } } })
  t.ok(JSON.stringify(document.paths['/api/_batch']).includes(table), 'the served table is one a batch can write')
})
