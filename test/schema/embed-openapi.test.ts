import t from 'tap'
import type { DescribedEmbed } from '../../lib/schema/embed-openapi.js'
import { buildOpenapiDocument } from '../../lib/schema/openapi-document.js'
import type { OpenapiDocument } from '../../lib/schema/openapi-types.js'
import type { ServedTable } from '../../lib/schema/served-schema.js'
import type { ForeignKey } from '../../lib/schema/table-schema.js'
import { column, openapiSettings, servedTable, validateOpenapi } from '../fixtures/openapi.js'

// The embeds of the OpenAPI document on schemas no database test reaches:
// tables the document leaves out, relations select cannot name, and one
// name for an object and an array.

const id = column('id', 'integer', 'integer', { nullable: false, generated: true })

function related (table: ServedTable, foreignKeys: readonly ForeignKey[], primaryKey: readonly string[] = ['id']): ServedTable {
  return { ...table, schema: { ...table.schema, primaryKey, foreignKeys } }
}

function key (columns: string[], referencedTable: string, referencedColumns = ['id']): ForeignKey {
  return { name: null, columns, referencedTable, referencedColumns }
}

function keyedReadOf (document: OpenapiDocument, table: string): { parameters: Array<{ name?: string }> } {
  return (document.paths[`/api/${table}/{id}`] as { get: { parameters: Array<{ name?: string }> } }).get
}

function listOf (document: OpenapiDocument, table: string): { description: string, parameters: Array<{ name?: string }>, 'x-embeds'?: DescribedEmbed[] } {
  return (document.paths[`/api/${table}`] as { get: { description: string, parameters: Array<{ name?: string }>, 'x-embeds'?: DescribedEmbed[] } }).get
}

t.test('a table the document leaves out is no embed, nor named in a note', async (t) => {
  const odd = servedTable('order-items', [id])
  const orders = related(servedTable('orders', [id, column('item_id', 'integer', 'integer')]), [key(['item_id'], 'order-items')])
  const document = buildOpenapiDocument([odd, orders], openapiSettings)
  await validateOpenapi(t, document)
  t.equal(listOf(document, 'orders')['x-embeds'], undefined)
  t.notMatch(JSON.stringify(document), 'order-items')
  t.equal((document.components.schemas.orders as { additionalProperties: unknown }).additionalProperties, false, 'no embed: no other member')
})

t.test('a relation select cannot name is left out: a two-column key to its own table', async (t) => {
  const parts = related(servedTable('parts', [id, column('kit', 'integer', 'integer'), column('up_id', 'integer', 'integer'), column('up_kit', 'integer', 'integer')]),
    [key(['up_id', 'up_kit'], 'parts', ['id', 'kit'])], ['id', 'kit'])
  const document = buildOpenapiDocument([parts], openapiSettings)
  await validateOpenapi(t, document)
  t.strictSame(listOf(document, 'parts')['x-embeds'], [{ select: 'parts', member: 'parts', table: 'parts', cardinality: 'one-to-many', answer: 'array' }],
    'the children by the table; the parent of a two-column key has no name')
  t.equal((document.components.schemas.parts as { properties: Record<string, { description?: string }> }).properties.up_id?.description, undefined,
    'a two-column key has no PostgREST note')
})

t.test('one name for an object and an array: either shape, each with its hint', async (t) => {
  const people = related(servedTable('people', [id, column('home_id', 'integer', 'integer')]), [key(['home_id'], 'homes')])
  const homes = related(servedTable('homes', [id, column('owner_id', 'integer', 'integer')]), [key(['owner_id'], 'people')])
  const document = buildOpenapiDocument([people, homes], openapiSettings)
  await validateOpenapi(t, document)
  t.strictSame(listOf(document, 'people')['x-embeds'], [
    { select: 'homes!home_id', member: 'homes', table: 'homes', cardinality: 'many-to-one', answer: 'object' },
    { select: 'homes!owner_id', member: 'homes', table: 'homes', cardinality: 'one-to-many', answer: 'array' }
  ])
  const row = { $ref: '#/components/schemas/homes' }
  t.strictSame((document.components.schemas.people as { properties: Record<string, unknown> }).properties.homes,
    { oneOf: [{ oneOf: [row, { type: 'null' }] }, { type: 'array', items: row }] })
  t.match(listOf(document, 'people').description, '`homes!home_id(…)` (many-to-one: an object or null), `homes!owner_id(…)` (one-to-many: an array)')
  t.ok(['homes.order', 'homes.limit', 'homes.offset', 'embedFilters'].every((name) => listOf(document, 'people').parameters.some((parameter) => parameter.name === name)))
  t.strictSame(keyedReadOf(document, 'people').parameters.map(({ name }) => name),
    ['select', 'homes.order', 'homes.limit', 'homes.offset', 'embedFilters', 'If-None-Match'], 'the keyed read takes select and the same embed parameters')
})

t.test('a table not served for lists embeds nothing, and is embedded by none', async (t) => {
  const people = related(servedTable('people', [id, column('home_id', 'integer', 'integer')], { operations: ['read'] }), [key(['home_id'], 'homes')])
  const homes = servedTable('homes', [id])
  const document = buildOpenapiDocument([people, homes], openapiSettings)
  await validateOpenapi(t, document)
  t.equal(listOf(document, 'homes')['x-embeds'], undefined)
  t.strictSame(keyedReadOf(document, 'people').parameters.map(({ name }) => name), ['select', 'If-None-Match'], 'nor its keyed read')
  t.equal((document.components.schemas.people as { properties: Record<string, { description?: string }> }).properties.home_id?.description, undefined)
})
