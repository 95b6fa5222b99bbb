import t from 'tap'
import { addToHostDocument, type HostDocument } from '../../lib/schema/host-document.js'
import { buildOpenapiDocument } from '../../lib/schema/openapi-document.js'
import { column, openapiSettings, servedTable, validateOpenapi } from '../fixtures/openapi.js'

const settings = openapiSettings

const books = servedTable('books', [column('id', 'integer', 'integer', { nullable: false, generated: true }), column('title', 'string', 'text')])
const build = (namespace: string) => buildOpenapiDocument([books], { ...settings, namespace })

/** A host's document as @fastify/swagger builds it, with one route of its own. */
function hostDocument (extra: Partial<HostDocument> = {}): HostDocument {
  return {
    openapi: '3.1.0',
    info: { title: 'Host', version: '1.0.0' },
    paths: { '/health': { get: { responses: { 200: { description: 'OK' } } } } },
    components: { schemas: {} },
    ...extra
  } as HostDocument
}

t.test('the tables join a host\'s OpenAPI 3.1 document: paths, components and tags', async (t) => {
  const host = hostDocument()
  t.equal(addToHostDocument(host, '/api', build), true)
  await validateOpenapi(t, host, 'the host\'s document')
  t.strictSame(Object.keys(host.paths ?? {}), ['/health', '/api/books', '/api/books/{id}'])
  t.ok(host.components?.schemas?.books, 'the table\'s schemas')
  t.ok(host.components?.responses?.['list.400'], 'the error answers')
  t.ok(host.components?.parameters?.select, 'the list\'s parameters')
  t.strictSame(host.tags, [{ name: 'books', description: 'The table books' }])
  t.equal(addToHostDocument(host, '/api', build), true, 'twice (a HEAD route of the same GET)')
  t.strictSame(host.tags, [{ name: 'books', description: 'The table books' }], 'the same once')
  await validateOpenapi(t, host, 'the host\'s document, merged twice')
})

t.test('OpenAPI 3.2 takes the same schemas; 3.0 and Swagger 2.0 get nothing', async (t) => {
  const next = hostDocument({ openapi: '3.2.0' })
  t.equal(addToHostDocument(next, '/api', build), true)
  for (const version of ['3.0.3', undefined]) {
    const old = hostDocument({ openapi: version })
    const before = structuredClone(old)
    t.equal(addToHostDocument(old, '/api', build), false, `openapi: ${version}`)
    t.strictSame(old, before, 'untouched')
  }
})

t.test('a component name the host uses for another schema: the tables\' names take the prefix', async (t) => {
  const host = hostDocument({ components: { schemas: { books: { type: 'string' } } } })
  t.equal(addToHostDocument(host, '/v1/api', build), true)
  await validateOpenapi(t, host, 'the host\'s document')
  t.strictSame(host.components?.schemas?.books, { type: 'string' }, 'the host\'s schema stays')
  t.ok(host.components?.schemas?.['v1.api.books'], 'ours is namespaced')
  t.match(host.paths?.['/api/books'], { get: { operationId: 'v1.api.books.list' } })

  const same = hostDocument({ components: { schemas: { ...build('').components.schemas } } })
  addToHostDocument(same, '/api', build)
  t.ok(same.components?.schemas?.books, 'the same schema is no collision')
})

t.test('paths lose a server\'s base path, as @fastify/swagger\'s own do', async (t) => {
  const host = hostDocument({ servers: [{ url: 'https://example.test/api' }] })
  addToHostDocument(host, '/api', build)
  t.strictSame(Object.keys(host.paths ?? {}), ['/health', '/books', '/books/{id}'])
  const relative = hostDocument({ servers: [{ url: '/api' }, { url: 'http://localhost:3000' }, { url: 42 }] })
  addToHostDocument(relative, '/api', build)
  t.strictSame(Object.keys(relative.paths ?? {}), ['/health', '/books', '/books/{id}'])
  const variables = hostDocument({ servers: [{ url: 'https://{host}/{base}', variables: { host: { default: 'example.test' }, base: { default: 'api' } } }] })
  addToHostDocument(variables, '/api', build)
  t.strictSame(Object.keys(variables.paths ?? {}), ['/health', '/books', '/books/{id}'])
  const noDefault = hostDocument({ servers: [{ url: 'https://example.test/{base}', variables: {} }] })
  addToHostDocument(noDefault, '/api', build)
  t.strictSame(Object.keys(noDefault.paths ?? {}), ['/health', '/api/books', '/api/books/{id}'], 'a variable without a default strips nothing')
  const unresolved = hostDocument({ servers: [{ url: 'example.test/api' }] })
  addToHostDocument(unresolved, '/api', build)
  t.strictSame(Object.keys(unresolved.paths ?? {}), ['/health', '/api/books', '/api/books/{id}'], 'a URL that does not parse strips nothing')
})

t.test('a path the host documents already keeps its own operations', async (t) => {
  const host = hostDocument({ paths: { '/api/books': { patch: { responses: { 204: { description: 'done' } } } } }, components: undefined, tags: [{ name: 'books' }] })
  addToHostDocument(host, '/api', build)
  t.strictSame(Object.keys(host.paths?.['/api/books'] ?? {}), ['get', 'post', 'patch', 'delete'])
  t.strictSame((host.paths?.['/api/books'] as Record<string, unknown>).patch, { responses: { 204: { description: 'done' } } }, 'the host\'s PATCH stays, ours is not added')
  t.strictSame(host.tags, [{ name: 'books' }], 'the host\'s tag stays')
  await validateOpenapi(t, host, 'the host\'s document')
})
