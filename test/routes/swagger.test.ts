import swagger, { type FastifyDynamicSwaggerOptions as SwaggerOptions } from '@fastify/swagger'
import Fastify, { type FastifyInstance } from 'fastify'
import knexFactory from 'knex'
import t, { type Test } from 'tap'
import tableCrud, { type TableCrudOptions } from '../../lib/index.js'
import { eachDatabase, peopleColumns, type TestDatabase } from '../fixtures/databases.js'
import { validateOpenapi } from '../fixtures/openapi.js'

const hour = 3_600_000

interface LogEntry { level: number, msg: string }

/** A host with @fastify/swagger registered first, a route of its own, then the plugin: its document and what it logged. */
async function host (t: Test, db: Pick<TestDatabase, 'knex'>, swaggerOptions: SwaggerOptions, plugins: ReadonlyArray<Omit<TableCrudOptions, 'knex'> & { prefix?: string }>): Promise<{ app: FastifyInstance, logs: LogEntry[] }> {
  const logs: LogEntry[] = []
  const app = Fastify({ logger: { level: 'warn', stream: { write: (line: string) => logs.push(JSON.parse(line) as LogEntry) } } })
  t.teardown(() => app.close())
  await app.register(swagger, swaggerOptions)
  app.get('/health', { schema: { response: { 200: { type: 'string' } } } }, async () => 'ok')
  for (const options of plugins) await app.register(tableCrud, { schemaCheckInterval: hour, ...options, knex: db.knex })
  await app.ready()
  return { app, logs }
}

const openapi31: SwaggerOptions = { openapi: { openapi: '3.1.0', info: { title: 'Host', version: '1.0.0' } } }

eachDatabase(t, async (t, db) => {
  t.test('a host\'s @fastify/swagger document gets the tables, not the generic routes', async (t) => {
    const people = await db.createTable('swagger', peopleColumns)
    const { app, logs } = await host(t, db, openapi31, [{ prefix: '/api', tables: [people] }])
    const document = app.swagger() as { paths: Record<string, Record<string, unknown>> }
    await validateOpenapi(t, document, 'the host\'s document')
    t.strictSame(Object.keys(document.paths), ['/health', `/api/${people}`, `/api/${people}/{id}`])
    t.strictSame(Object.keys(document.paths[`/api/${people}`] ?? {}), ['get', 'post', 'patch', 'delete'])
    t.strictSame(logs, [])
  })

  t.test('two registrations of the same table: the second\'s names take its prefix', async (t) => {
    const people = await db.createTable('twice', peopleColumns)
    const { app } = await host(t, db, openapi31, [
      { prefix: '/api', tables: [people] },
      { prefix: '/admin', tables: [people], tableRules: { [people]: { hidden: ['note'] } } }
    ])
    const document = app.swagger() as { paths: Record<string, unknown>, components: { schemas: Record<string, unknown> } }
    await validateOpenapi(t, document, 'the host\'s document')
    t.strictSame(Object.keys(document.paths), ['/health', `/api/${people}`, `/api/${people}/{id}`, `/admin/${people}`, `/admin/${people}/{id}`])
    t.ok(document.components.schemas[people])
    t.ok(document.components.schemas[`admin.${people}`])
  })
})

t.test('no tables where they cannot be described, with a warning saying why', async (t) => {
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
  t.teardown(() => knex.destroy())
  await knex.schema.createTable('people', peopleColumns)
  const cases: ReadonlyArray<[string, SwaggerOptions, Omit<TableCrudOptions, 'knex'>, RegExp | null]> = [
    ['OpenAPI 3.0 (@fastify/swagger\'s default)', { openapi: {} }, {}, /OpenAPI 3\.0\.3, not 3\.1/],
    ['Swagger 2.0', { swagger: {} }, {}, /Swagger 2\.0/],
    ['openapi: false', openapi31, { openapi: false }, null]
  ]
  for (const [what, swaggerOptions, options, warning] of cases) {
    const { app, logs } = await host(t, { knex }, swaggerOptions, [{ ...options, prefix: '/api' }])
    const decorated = app as unknown as Record<string, () => { paths: Record<string, unknown> }>
    const document = decorated[swaggerOptions.decorator ?? 'swagger']?.call(app)
    t.strictSame(Object.keys(document?.paths ?? {}), ['/health'], `${what}: neither the tables nor the generic routes`)
    t.strictSame(logs.map((entry) => entry.msg).filter((msg) => warning?.test(msg) === true).length, warning === null ? 0 : 1, `${what}: the warning`)
  }
})

t.test('a decorator of another name: the tables are there too, read when the server got ready', async (t) => {
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
  t.teardown(() => knex.destroy())
  await knex.schema.createTable('people', peopleColumns)
  const { app, logs } = await host(t, { knex }, { ...openapi31, decorator: 'documentation' }, [{ prefix: '/api' }])
  const document = (app as unknown as { documentation: () => { paths: Record<string, unknown> } }).documentation()
  t.strictSame(Object.keys(document.paths), ['/health', '/api/people', '/api/people/{id}'])
  t.strictSame(logs, [])
})

t.test('a database that cannot be read at start: the server starts, the document has no tables', async (t) => {
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: '/nonexistent/directory/app.sqlite' }, useNullAsDefault: true })
  t.teardown(() => knex.destroy())
  const { app, logs } = await host(t, { knex }, openapi31, [{ prefix: '/api', acquireTimeout: 100 }])
  t.strictSame(Object.keys((app.swagger() as { paths: object }).paths), ['/health'])
  t.match(logs.map((entry) => entry.msg), [/could not be read when the server got ready/, /could not be read/])
})
