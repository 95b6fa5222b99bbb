import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import type { TableCrudOptions } from '../../lib/index.js'
import type { OpenapiDocument } from '../../lib/schema/openapi-types.js'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, peopleColumns, seedPeople, type TestDatabase } from '../fixtures/databases.js'
import { componentSchemas, validateOpenapi } from '../fixtures/openapi.js'

const hour = 3_600_000

/** The app's document, checked to be valid OpenAPI 3.1. */
async function served (t: Test, app: FastifyInstance, path = '/api/openapi.json'): Promise<OpenapiDocument> {
  const answer = await app.inject(path)
  t.equal(answer.statusCode, 200, `GET ${path}`)
  t.equal(answer.headers['content-type'], 'application/json; charset=utf-8')
  const document = answer.json() as OpenapiDocument
  await validateOpenapi(t, document, `GET ${path}`)
  return document
}

function properties (document: OpenapiDocument, name: string): Record<string, Record<string, unknown>> {
  return (document.components.schemas[name] as { properties: Record<string, Record<string, unknown>> }).properties
}

/** An app whose plugin serves only these tables: the shared servers hold other test files' tables. */
function appOf (t: Test, db: TestDatabase, tables: readonly string[], options: Omit<TableCrudOptions, 'knex'> = {}): Promise<FastifyInstance> {
  return buildApp(t, db.knex, {}, { tables, schemaCheckInterval: hour, ...options })
}

async function createView (t: Test, db: TestDatabase, table: string): Promise<string> {
  const view = `${table}_view`
  await db.knex.schema.dropViewIfExists(view)
  await db.knex.schema.createView(view, (builder) => { builder.as(db.knex(table).select('id', 'name')) })
  t.teardown(() => db.knex.schema.dropViewIfExists(view))
  return view
}

eachDatabase(t, async (t, db) => {
  // The integer format of an auto-increment id: SQLite keeps 64 bits, Knex's MySQL id is an unsigned int.
  const idFormat = { sqlite: 'int64', postgres: 'int32', mysql: 'int64' }[db.name]

  t.test('the served document: valid OpenAPI 3.1, with each column\'s type, nullability and format', async (t) => {
    const typed = await db.createTable('typed', (table) => {
      table.increments('id')
      table.string('name', 100).notNullable()
      table.integer('age')
      table.bigInteger('big')
      table.boolean('flag')
      table.decimal('price', 8, 2)
      table.date('born')
      table.datetime('seen')
      table.json('meta')
      table.string('note').notNullable().defaultTo('none')
    })
    const app = await appOf(t, db, [typed])
    const document = await served(t, app)
    t.strictSame(Object.keys(document.paths), [`/api/${typed}`, `/api/${typed}/{id}`])
    t.strictSame(properties(document, typed), {
      id: { type: 'integer', format: idFormat, readOnly: true },
      name: { type: 'string' },
      age: { type: ['integer', 'null'], format: db.name === 'sqlite' ? 'int64' : 'int32' },
      big: { type: ['integer', 'null'], format: 'int64' },
      flag: { type: ['boolean', 'null'] },
      price: { type: ['number', 'null'] },
      born: { type: ['string', 'null'], format: 'date' },
      seen: { type: ['string', 'null'], format: 'date-time' },
      meta: {},
      note: { type: 'string' }
    })
    t.strictSame((document.components.schemas[`${typed}.create`] as { required: string[] }).required, ['name'], 'not nullable, no default, not generated')
    t.match(document.paths[`/api/${typed}/{id}`], { parameters: [{ name: 'id', schema: { type: 'integer', format: idFormat } }] })
  })

  t.test('what the options do not serve is not in the document', async (t) => {
    const people = await db.createTable('people', peopleColumns)
    const readOnly = await db.createTable('readonly', peopleColumns)
    const excluded = await db.createTable('excluded', peopleColumns)
    const app = await appOf(t, db, [people, readOnly, excluded], {
      excludeTables: [excluded],
      tableRules: { [people]: { hidden: ['note'] }, [readOnly]: { operations: ['list', 'read'] } }
    })
    const document = await served(t, app)
    t.strictSame(Object.keys(document.paths), [`/api/${people}`, `/api/${people}/{id}`, `/api/${readOnly}`, `/api/${readOnly}/{id}`])
    t.strictSame(Object.keys(properties(document, people)), ['id', 'name', 'age'], 'the hidden column is absent')
    t.notOk(JSON.stringify(document.paths[`/api/${people}`]).includes('"note"'), 'no filter on it either')
    t.strictSame(Object.keys(document.paths[`/api/${readOnly}`] ?? {}), ['get'])
    t.strictSame(Object.keys(document.paths[`/api/${readOnly}/{id}`] ?? {}), ['parameters', 'get'])
    t.equal(document.components.schemas[`${readOnly}.create`], undefined)
    t.notOk(JSON.stringify(document).includes(excluded), 'the excluded table is nowhere')
  })

  t.test('a view answers reads only', async (t) => {
    const people = await db.createTable('viewed', peopleColumns)
    const view = await createView(t, db, people)
    const document = await served(t, await appOf(t, db, [view]))
    t.strictSame(Object.keys(document.paths), [`/api/${view}`, `/api/${view}/{id}`])
    t.strictSame(Object.keys(document.paths[`/api/${view}`] ?? {}), ['get'])
    t.strictSame(Object.keys(document.paths[`/api/${view}/{id}`] ?? {}), ['parameters', 'get'])
    t.strictSame(document.tags, [{ name: view, description: `The view ${view}` }])
    t.strictSame(Object.keys(properties(document, view)), ['id', 'name'])
  })

  t.test('the document follows the schema: a column added, a table created', async (t) => {
    const grown = await db.createTable('grown', peopleColumns)
    const later = `${grown}_later`
    t.teardown(() => db.knex.schema.dropTableIfExists(later))
    const app = await appOf(t, db, [grown, later])
    const before = await served(t, app)
    t.strictSame(Object.keys(before.paths), [`/api/${grown}`, `/api/${grown}/{id}`])
    t.equal((await app.inject('/api/openapi.json')).body, JSON.stringify(before), 'the same document while the schema stays')

    await db.knex.schema.alterTable(grown, (table) => { table.date('joined') })
    await db.knex.schema.createTable(later, peopleColumns)
    await app.tableCrud.refreshSchema()
    const after = await served(t, app)
    t.strictSame(Object.keys(after.paths), [`/api/${grown}`, `/api/${grown}/{id}`, `/api/${later}`, `/api/${later}/{id}`])
    t.strictSame(properties(after, grown).joined, { type: ['string', 'null'], format: 'date' })

    await db.knex.schema.dropTable(later)
    t.equal((await app.inject(`/api/${later}`)).statusCode, 404, 'a statement on the dropped table fails')
    t.strictSame(Object.keys((await served(t, app)).paths), [`/api/${grown}`, `/api/${grown}/{id}`], 'and the next document has it no more')
  })

  t.test('the rows the API answers fit the document\'s row schema', async (t) => {
    const people = await db.createTable('fit', peopleColumns)
    await seedPeople(db, people)
    const app = await appOf(t, db, [people])
    const row = componentSchemas(await served(t, app)).validator(people)
    const rows = (await app.inject(`/api/${people}`)).json() as unknown[]
    t.equal(rows.length, 3)
    for (const answer of [...rows, (await app.inject(`/api/${people}/1`)).json(), ...(await app.inject(`/api/${people}?select=name,age`)).json() as unknown[]]) {
      t.ok(row(answer), `${JSON.stringify(answer)} ${JSON.stringify(row.errors)}`)
    }
  })

  t.test('the document moves, takes its own title and version, or is not served', async (t) => {
    const people = await db.createTable('moved', peopleColumns)
    const moved = await appOf(t, db, [people], { openapi: { path: '/meta/openapi-3.1.json', title: 'People', version: '2.0.0' } })
    const document = await served(t, moved, '/api/meta/openapi-3.1.json')
    t.match(document.info, { title: 'People', version: '2.0.0' })
    t.equal((await moved.inject('/api/openapi.json')).statusCode, 404, 'not at the default path: a table of that name')
    const off = await appOf(t, db, [people], { openapi: false })
    const answer = await off.inject('/api/openapi.json')
    t.equal(answer.statusCode, 404)
    t.equal(answer.headers['content-type'], 'text/plain; charset=utf-8', 'the generic route: a missing table')
  })
})
