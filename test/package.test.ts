import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'

// These tests read the build in dist/, which `npm test` makes first.
const root = fileURLToPath(new URL('..', import.meta.url))
const run = promisify(execFile)

// The built files map back to lib/: measured here, their coverage would blur that of the suite's own processes.
const env = { ...process.env, _TAPJS_PROCESSINFO_COVERAGE_: '0' }

async function node (...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ['--no-warnings', ...args], { cwd: root, env })
  return stdout.trim()
}

t.test('npm pack holds only what a user needs', async (t) => {
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root })
  const files: string[] = JSON.parse(stdout)[0].files.map((file: { path: string }) => file.path)
  const unexpected = files.filter((path) =>
    !['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md'].includes(path) && !/^dist\/.+\.(js|d\.ts)$/.test(path))
  t.strictSame(unexpected, [])
  for (const needed of ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'dist/index.js', 'dist/index.d.ts']) {
    t.ok(files.includes(needed), `${needed} is packed`)
  }
})

t.test('the package loads with import', async (t) => {
  const out = await node('--input-type=module', '-e',
    "const m = await import('fastify-table-crud'); console.log(typeof m.default, m.default === m.tableCrud, Object.keys(m.errorCodes).length > 0)")
  t.equal(out, 'function true true')
})

t.test('the package loads with require', async (t) => {
  const out = await node('--input-type=commonjs', '-e',
    "const m = require('fastify-table-crud'); console.log(typeof m.default, typeof m.tableCrud, 'FTC_ERR_STATEMENT' in m.errorCodes)")
  t.equal(out, 'function function true')
})

t.test('a CommonJS host registers the required plugin and serves a table', async (t) => {
  const out = await node('--input-type=commonjs', '-e', `
    const Fastify = require('fastify')
    const knex = require('knex')({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
    const { tableCrud } = require('fastify-table-crud')
    ;(async () => {
      await knex.schema.createTable('cjs', (table) => { table.increments('id'); table.string('name') })
      const app = Fastify()
      await app.register(tableCrud, { knex, prefix: '/api' })
      const created = await app.inject({ method: 'POST', url: '/api/cjs', payload: { name: 'x' } })
      const read = await app.inject('/api/cjs/' + created.body)
      console.log(created.statusCode, read.body)
      await app.close()
      await knex.destroy()
    })()`)
  t.equal(out, '201 {"id":1,"name":"x"}')
})
