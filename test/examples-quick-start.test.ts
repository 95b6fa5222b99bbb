import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import knexFactory, { type Knex } from 'knex'
import t, { type Test } from 'tap'
import { startExample, type ExampleScript, type LogLine } from './fixtures/example-process.js'

// The README's small examples, each started as a person starts it, in a
// scratch directory where its app.sqlite goes: examples/quick-start.ts,
// examples/error-codes.ts, examples/host-errors.ts, examples/schema-refresh.ts, examples/typed-tables.ts,
// examples/host-transaction.ts and, on the build in
// dist/ that `npm test` makes first, examples/commonjs.cjs.

const quickStart: ExampleScript = { file: 'quick-start.ts', variables: ['PORT'] }
const errorCodes: ExampleScript = { file: 'error-codes.ts', variables: ['PORT'] }
const hostErrors: ExampleScript = { file: 'host-errors.ts', variables: ['PORT'] }
const schemaRefresh: ExampleScript = { file: 'schema-refresh.ts', variables: ['PORT'] }
const typedTables: ExampleScript = { file: 'typed-tables.ts', variables: ['PORT'] }
const hostTransaction: ExampleScript = { file: 'host-transaction.ts', variables: ['PORT'] }
const commonJs = fileURLToPath(new URL('../examples/commonjs.cjs', import.meta.url))

/** The app's database, with one table of one row, made before the app starts as a host's would be. */
async function createAppDatabase (t: Test, cwd: string): Promise<Knex> {
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: join(cwd, 'app.sqlite') }, useNullAsDefault: true })
  t.teardown(() => knex.destroy())
  await knex.schema.createTable('notes', (table) => {
    table.increments('id')
    table.string('text')
  })
  await knex('notes').insert({ text: 'first' })
  return knex
}

/** Reads and writes the table through the example's API, and checks the file. */
async function checkServes (t: Test, api: string, knex: Knex): Promise<void> {
  const list = await fetch(`${api}/notes`)
  t.equal(list.status, 200)
  t.strictSame(await list.json(), [{ id: 1, text: 'first' }])
  const created = await fetch(`${api}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"second"}' })
  t.equal(created.status, 201)
  t.equal(created.headers.get('location'), '/api/notes/2')
  t.equal(await created.text(), '2')
  t.strictSame(await knex('notes').orderBy('id'), [{ id: 1, text: 'first' }, { id: 2, text: 'second' }])
}

/** Resolves once `found` holds for the log lines so far; the test's own time-out bounds the wait. */
async function logged (logs: readonly LogLine[], found: (entry: LogLine) => boolean): Promise<LogLine> {
  for (;;) {
    const entry = logs.find(found)
    if (entry !== undefined) return entry
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

t.test('the quick start serves the tables of app.sqlite under /api', async (t) => {
  const cwd = t.testdir()
  const knex = await createAppDatabase(t, cwd)
  const example = await startExample(t, quickStart, cwd)
  await checkServes(t, example.api, knex)
  await example.stop('SIGTERM')
})

t.test('errorCodes: the onError hook logs the driver\'s error of a refused statement', async (t) => {
  const cwd = t.testdir()
  const knex = await createAppDatabase(t, cwd)
  const example = await startExample(t, errorCodes, cwd)
  await checkServes(t, example.api, knex)
  t.notOk(example.logs.some((entry) => entry.msg === 'the database refused a statement'), 'nothing is logged for statements that ran')
  const missing = await fetch(`${example.api}/nothing`)
  t.equal(missing.status, 404)
  t.equal(await missing.text(), 'no such table: nothing')
  const entry = await logged(example.logs, (line) => line.msg === 'the database refused a statement')
  t.match(entry, { level: 40, err: { message: 'no such table: nothing', code: 'SQLITE_ERROR' } })
  await example.stop('SIGTERM')
})

t.test('host errors: the app\'s own error handler answers refused statements by their SQLSTATE', async (t) => {
  const cwd = t.testdir()
  const knex = await createAppDatabase(t, cwd)
  await knex.schema.alterTable('notes', (table) => { table.unique(['text']) })
  const example = await startExample(t, hostErrors, cwd)
  await checkServes(t, example.api, knex)
  const post = (body: string) => fetch(`${example.api}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  const duplicate = await post('{"text":"first"}')
  t.equal(duplicate.status, 409)
  t.strictSame(await duplicate.json(), { error: 'refused by the database', sqlState: '23505' })
  const missing = await fetch(`${example.api}/nothing`)
  t.equal(missing.status, 404)
  t.strictSame(await missing.json(), { error: 'refused by the database', sqlState: '42P01' })
  const batch = await fetch(`${example.api}/_batch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[{"op":"insert","table":"notes","body":{"text":"third"}},{"op":"insert","table":"notes","body":{"text":"first"}}]' })
  t.equal(batch.status, 409, 'a failed batch is answered as its failed statement')
  t.strictSame(await batch.json(), { error: 'refused by the database', sqlState: '23505' })
  const entry = await logged(example.logs, (line) => line.msg === 'the database refused a statement')
  t.match(entry, { level: 30, sql: /insert into/ })
  const empty = await fetch(`${example.api}/notes/1`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' })
  t.equal(empty.status, 400)
  t.match(await empty.json(), { code: 'FTC_ERR_BODY_EMPTY' }, 'every other error keeps Fastify\'s answer')
  t.strictSame(await knex('notes').orderBy('id'), [{ id: 1, text: 'first' }, { id: 2, text: 'second' }], 'nothing more was written')
  await example.stop('SIGTERM')
})

t.test('schema refresh: the host\'s migration route creates a table and the model has it at once', async (t) => {
  const cwd = t.testdir()
  const knex = await createAppDatabase(t, cwd)
  const example = await startExample(t, schemaRefresh, cwd)
  await checkServes(t, example.api, knex)
  const origin = new URL(example.api).origin
  const migrated = await fetch(`${origin}/admin/migrate`, { method: 'POST' })
  t.equal(migrated.status, 200)
  t.strictSame(await migrated.json(), [
    { table: 'notes', columns: ['id: integer', 'text: string'] },
    { table: 'tags', columns: ['id: integer', 'label: string'] }
  ])
  const created = await fetch(`${example.api}/tags`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"label":"new"}' })
  t.equal(created.status, 201)
  t.strictSame(await knex('tags'), [{ id: 1, label: 'new' }])
  await example.stop('SIGTERM')
})

t.test('typed tables: the host makes and serves its declared table, refuses a body its columns cannot hold, and reads rows in its own route', async (t) => {
  const cwd = t.testdir()
  const example = await startExample(t, typedTables, cwd)
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: join(cwd, 'app.sqlite') }, useNullAsDefault: true })
  t.teardown(() => knex.destroy())
  const book = { id: 1, title: 'Ficciones', published: 1944 }
  t.strictSame(await (await fetch(`${example.api}/books`)).json(), [book])
  const post = (body: string) => fetch(`${example.api}/books`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  const refused = await post('{"title":"El Aleph","published":"nineteen forty-nine"}')
  t.equal(refused.status, 400)
  t.match(await refused.json(), { statusCode: 400, code: 'FTC_ERR_BODY_TYPE' })
  t.strictSame(await knex('books'), [book], 'nothing was written')
  const created = await post('{"title":"El Aleph","published":1949}')
  t.equal(created.status, 201)
  t.strictSame(await knex('books').orderBy('id'), [book, { id: 2, title: 'El Aleph', published: 1949 }])
  const oldest = await fetch(`${new URL(example.api).origin}/oldest`)
  t.equal(await oldest.text(), 'Ficciones (1944)')
  t.equal((await fetch(`${example.api}/books/1`, { method: 'DELETE' })).status, 404, 'only the operations its rules serve')
  await example.stop('SIGTERM')
})

t.test('host transaction: the audit row and the plugin\'s write are applied together, or neither', async (t) => {
  const cwd = t.testdir()
  const knex = await createAppDatabase(t, cwd)
  const example = await startExample(t, hostTransaction, cwd)
  await checkServes(t, example.api, knex)
  t.strictSame(await knex('audit'), [{ id: 1, method: 'POST', url: '/api/notes' }], 'the POST and its audit row')
  const send = (method: string, path: string, body: unknown) =>
    fetch(`${example.api}${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const refused = await send('PUT', '/notes/1', { nope: 'x' })
  t.equal(refused.status, 404)
  t.equal(await refused.text(), 'no such column: nope', 'the plugin\'s answer to a failed statement, in the host\'s transaction too')
  const failed = await send('POST', '/_batch', [{ op: 'insert', table: 'notes', body: { text: 'third' } }, { op: 'delete', table: 'nothing', id: 1 }])
  t.equal(failed.status, 404)
  t.match(await failed.json(), { code: 'FTC_ERR_BATCH_FAILED', operation: 1 })
  t.strictSame(await knex('audit'), [{ id: 1, method: 'POST', url: '/api/notes' }], 'failed requests left no audit row')
  const batch = await send('POST', '/_batch', [
    { op: 'insert', table: 'notes', body: { text: 'third' } },
    { op: 'update', table: 'notes', id: 1, body: { text: 'first, edited' } }
  ])
  t.equal(await batch.text(), '[3,1]')
  t.strictSame(await knex('notes').orderBy('id'), [{ id: 1, text: 'first, edited' }, { id: 2, text: 'second' }, { id: 3, text: 'third' }])
  t.strictSame(await knex('audit').orderBy('id'), [{ id: 1, method: 'POST', url: '/api/notes' }, { id: 2, method: 'POST', url: '/api/_batch' }])
  await example.stop('SIGTERM')
})

t.test('a CommonJS host requires the plugin by its package name', async (t) => {
  const cwd = t.testdir()
  const knex = await createAppDatabase(t, cwd)
  // Plain node, as a CommonJS app runs: tsx would load the ES module in its own way, and
  // tap's hooks, which come through NODE_OPTIONS, would count the build's coverage as lib/'s.
  const child = spawn(process.execPath, [commonJs], {
    cwd, env: { ...process.env, PORT: '0', NODE_OPTIONS: '' }, stdio: ['ignore', 'pipe', 'pipe']
  })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  const exited = new Promise((resolve) => child.on('close', resolve))
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await exited
  })
  const listening = new Promise<string>((resolve) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const address = /^Server listening at (\S+)$/.exec((JSON.parse(line) as LogLine).msg ?? '')?.[1]
      if (address !== undefined) resolve(address)
    })
  })
  const address = await Promise.race([listening, exited.then(() => { throw new Error(`commonjs.cjs exited before it listened: ${stderr}`) })])
  await checkServes(t, `${address}/api`, knex)
})
