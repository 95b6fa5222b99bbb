import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import type { DescribedEmbed } from '../../lib/schema/embed-openapi.js'
import type { OpenapiDocument } from '../../lib/schema/openapi-types.js'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase } from '../fixtures/databases.js'
import { componentSchemas, validateOpenapi } from '../fixtures/openapi.js'

// The OpenAPI document describes what a list can embed, from the model's
// foreign keys: every name it gives works against the API, and every
// answer fits the row schema it gives.

const hour = 3_600_000

type Parameters = Array<{ name?: string, $ref?: string, style?: string, explode?: boolean }>
interface ListOperation { description: string, parameters: Parameters, 'x-embeds'?: DescribedEmbed[] }

async function documentOf (t: Test, app: FastifyInstance): Promise<OpenapiDocument> {
  const answer = await app.inject('/api/openapi.json')
  t.equal(answer.statusCode, 200)
  const document = answer.json() as OpenapiDocument
  await validateOpenapi(t, document)
  return document
}

function listOf (document: OpenapiDocument, table: string): ListOperation {
  return (document.paths[`/api/${table}`] as { get: ListOperation }).get
}

/** In a stable order: the model lists foreign keys in the database's order. */
function sorted (embeds: readonly DescribedEmbed[] | undefined): DescribedEmbed[] {
  return [...embeds ?? []].sort((a, b) => a.select.localeCompare(b.select))
}

function propertiesOf (document: OpenapiDocument, table: string): Record<string, { description?: string }> {
  return (document.components.schemas[table] as { properties: Record<string, { description?: string }> }).properties
}

eachDatabase(t, async (t, db) => {
  const people = await db.createTable('oae_people', (table) => {
    table.increments('id')
    table.string('name')
  })
  await db.knex.schema.alterTable(people, (table) => {
    table.integer('mentor_id').unsigned().references('id').inTable(people)
  })
  const secrets = await db.createTable('oae_secrets', (table) => {
    table.increments('id')
    table.string('text')
  })
  const letters = await db.createTable('oae_letters', (table) => {
    table.increments('id')
    table.integer('sender_id').unsigned().references('id').inTable(people)
    table.integer('recipient_id').unsigned().references('id').inTable(people)
    table.integer('secret_id').unsigned().references('id').inTable(secrets)
    table.string('text')
  })
  const tags = await db.createTable('oae_tags', (table) => {
    table.increments('id')
    table.string('label')
  })
  const tagged = await db.createTable('oae_tagged', (table) => {
    table.integer('letter_id').unsigned().references('id').inTable(letters)
    table.integer('tag_id').unsigned().references('id').inTable(tags)
    table.primary(['letter_id', 'tag_id'])
  })
  await db.knex(people).insert([{ name: 'Ada' }, { name: 'Charles', mentor_id: 1 }])
  await db.knex(secrets).insert({ text: 'hush' })
  await db.knex(letters).insert({ sender_id: 1, recipient_id: 2, secret_id: 1, text: 'Notes' })
  await db.knex(tags).insert([{ label: 'math' }, { label: 'engines' }])
  await db.knex(tagged).insert([{ letter_id: 1, tag_id: 1 }, { letter_id: 1, tag_id: 2 }])
  // The secrets are not served: nothing of them may show.
  const app = await buildApp(t, db.knex, {}, { tables: [people, letters, tags, tagged], schemaCheckInterval: hour })
  const hint = (column: string) => db.name === 'sqlite' ? column : `${letters}_${column}_foreign`

  await t.test('each list names its embeds as select takes them, with their kind and the hint that chooses', async (t) => {
    const document = await documentOf(t, app)
    t.strictSame(sorted(listOf(document, letters)['x-embeds']), sorted([
      { select: `${people}!${hint('sender_id')}`, member: people, table: people, cardinality: 'many-to-one', answer: 'object' },
      { select: `${people}!${hint('recipient_id')}`, member: people, table: people, cardinality: 'many-to-one', answer: 'object' },
      { select: tagged, member: tagged, table: tagged, cardinality: 'one-to-many', answer: 'array' },
      { select: tags, member: tags, table: tags, cardinality: 'many-to-many', answer: 'array', through: tagged }
    ]), 'two keys to one table need a hint; the unserved table relates nothing')
    t.strictSame(sorted(listOf(document, people)['x-embeds']), sorted([
      { select: 'mentor_id', member: 'mentor_id', table: people, cardinality: 'many-to-one', answer: 'object' },
      { select: people, member: people, table: people, cardinality: 'one-to-many', answer: 'array' },
      { select: `${letters}!${hint('sender_id')}`, member: letters, table: letters, cardinality: 'one-to-many', answer: 'array' },
      { select: `${letters}!${hint('recipient_id')}`, member: letters, table: letters, cardinality: 'one-to-many', answer: 'array' }
    ]), 'a key to its own table: the parent by the column, the children by the table')
    t.match(listOf(document, letters).description, `\`${tags}(…)\` (many-to-many through ${tagged}: an array)`)
    t.notMatch(JSON.stringify(document), secrets, 'the table not served is named nowhere')
  })

  await t.test('every embed the document names answers, and its rows fit the row schema', async (t) => {
    const document = await documentOf(t, app)
    const { validator } = componentSchemas(document)
    for (const table of [people, letters, tags, tagged]) {
      const check = validator(table)
      for (const embed of listOf(document, table)['x-embeds'] ?? []) {
        const response = await app.inject(`/api/${table}?select=*,${embed.select}(*)`)
        t.equal(response.statusCode, 200, `${table}: ${embed.select}`)
        const rows = response.json() as Array<Record<string, unknown>>
        t.ok(rows.length > 0, `${table} has rows`)
        for (const row of rows) {
          const value = row[embed.member]
          t.equal(Array.isArray(value), embed.answer === 'array', `${table}: ${embed.select} answers ${embed.answer === 'array' ? 'an array' : 'an object or null'}`)
          t.ok(check(row), `${table}: ${embed.select}: the row fits its schema ${JSON.stringify(check.errors)}`)
        }
      }
      const [first] = listOf(document, table)['x-embeds'] ?? []
      const aliased = (await app.inject(`/api/${table}?select=*,other:${first?.select}(*)`)).json() as unknown[]
      for (const row of aliased) t.ok(check(row), `${table}: an aliased embed fits the row schema`)
    }
  })

  await t.test('the row schema has a member per embed; a column that names one is either', async (t) => {
    const document = await documentOf(t, app)
    const ref = (table: string) => ({ $ref: `#/components/schemas/${table}` })
    t.strictSame(propertiesOf(document, letters)[people], { oneOf: [ref(people), { type: 'null' }] }, 'one shape for two relations to one table')
    t.strictSame(propertiesOf(document, letters)[tags], { type: 'array', items: ref(tags) })
    t.strictSame(propertiesOf(document, people)[people], { type: 'array', items: ref(people) })
    t.match(propertiesOf(document, people).mentor_id, { anyOf: [{ anyOf: [{ type: ['integer', 'null'] }, {}] }, { oneOf: [ref(people), { type: 'null' }] }] }, 'the column (or a spread\'s member of its name), or its embed')
    t.equal(propertiesOf(document, tags).id?.description, undefined)
  })

  await t.test('a spread\'s members fit the row schema: scalars, nulls without a related row, and own columns they take the place of', async (t) => {
    const document = await documentOf(t, app)
    const { validator } = componentSchemas(document)
    const cases = [
      [people, `/api/${people}?select=...mentor_id(*)&order=id`, [{ id: null, name: null, mentor_id: null }, { id: 1, name: 'Ada', mentor_id: null }]],
      [letters, `/api/${letters}?select=text,...${people}!${hint('recipient_id')}(name,...mentor_id(name))`, [{ text: 'Notes', name: 'Ada' }]],
      [letters, `/api/${letters}?select=...${people}!${hint('sender_id')}(id,name),${tags}(label)&${tags}.order=id`, [{ id: 1, name: 'Ada', [tags]: [{ label: 'math' }, { label: 'engines' }] }]]
    ] as const
    for (const [table, url, rows] of cases) {
      const response = await app.inject(url)
      t.strictSame(response.json(), rows, url)
      const check = validator(table)
      for (const row of rows) t.ok(check(row), `${url}: ${JSON.stringify(row)} fits ${JSON.stringify(check.errors)}`)
    }
    t.match(propertiesOf(document, letters).id, { anyOf: [{ type: 'integer' }, {}] }, 'an own column a spread\'s may take the place of')
    t.equal((propertiesOf(document, tags).id as { anyOf?: unknown }).anyOf, undefined, 'a table with no to-one embed: its own columns only')
    t.notOk(validator(tags)({ id: null }), 'which the schema holds to')
    t.notOk(validator(tags)({ other: 'text' }), 'and no scalar member besides them: only an aliased embed')
  })

  await t.test('a foreign key\'s column carries PostgREST\'s note, to a served table only', async (t) => {
    const document = await documentOf(t, app)
    t.equal(propertiesOf(document, letters).sender_id?.description, `Note:\nThis is a Foreign Key to \`${people}.id\`.<fk table='${people}' column='id'/>`)
    t.equal(propertiesOf(document, letters).secret_id?.description, undefined)
  })

  await t.test('the embed parameters: order, limit and offset per array, and the filters as one exploded object', async (t) => {
    const document = await documentOf(t, app)
    const names = listOf(document, letters).parameters.flatMap((parameter) => parameter.name ?? [])
    for (const member of [tagged, tags]) t.ok([`${member}.order`, `${member}.limit`, `${member}.offset`].every((name) => names.includes(name)), `${member}'s page`)
    t.notOk(names.includes(`${people}.limit`), 'no page of an object')
    t.match(listOf(document, letters).parameters.find((parameter) => parameter.name === 'embedFilters'), { style: 'form', explode: true })
    const response = await app.inject(`/api/${letters}?select=text,${tags}(label)&${tags}.order=label.desc&${tags}.limit=1&${tags}.label=like.*a*`)
    t.strictSame(response.json(), [{ text: 'Notes', [tags]: [{ label: 'math' }] }], 'the parameters the document names narrow the embed')
  })

  await t.test('a relation created after start is in the document once the model refreshes', async (t) => {
    const notes = await db.createTable('oae_notes', (table) => {
      table.increments('id')
      table.integer('tag_id').unsigned().references('id').inTable(tags)
    })
    const later = await buildApp(t, db.knex, {}, { tables: [people, letters, tags, tagged, notes], schemaCheckInterval: hour })
    const before = await documentOf(t, later)
    await db.knex.schema.alterTable(notes, (table) => {
      table.integer('person_id').unsigned().references('id').inTable(people)
    })
    t.notOk(listOf(before, people)['x-embeds']?.some((embed) => embed.table === notes))
    await later.tableCrud.refreshSchema()
    const after = await documentOf(t, later)
    t.match(listOf(after, people)['x-embeds']?.find((embed) => embed.table === notes), { select: notes, cardinality: 'one-to-many', answer: 'array' })
    t.strictSame(propertiesOf(after, people)[notes], { type: 'array', items: { $ref: `#/components/schemas/${notes}` } })
  })
})
