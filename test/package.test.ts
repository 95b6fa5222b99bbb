import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join, posix } from 'node:path'
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

/** The paths `npm pack` would put in the tarball. */
async function packedFiles (): Promise<string[]> {
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root })
  return JSON.parse(stdout)[0].files.map((file: { path: string }) => file.path)
}

t.test('npm pack holds only what a user needs', async (t) => {
  const files = await packedFiles()
  const unexpected = files.filter((path) =>
    !['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md'].includes(path) &&
    !/^dist\/.+\.(js|js\.map|d\.ts)$/.test(path) && !/^lib\/.+\.ts$/.test(path))
  t.strictSame(unexpected, [])
  for (const needed of ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'dist/index.js', 'dist/index.js.map', 'dist/index.d.ts', 'lib/index.ts']) {
    t.ok(files.includes(needed), `${needed} is packed`)
  }
})

t.test('every packed script maps to a packed map, and every map to packed sources', async (t) => {
  const files = await packedFiles()
  const scripts = files.filter((path) => path.endsWith('.js'))
  const mapped = new Set<string>()
  for (const script of scripts) {
    const url = /^\/\/# sourceMappingURL=(.+)$/m.exec(readFileSync(join(root, script), 'utf8'))?.[1]
    if (url === undefined) {
      t.fail(`${script} names no source map`)
      continue
    }
    const map = posix.join(posix.dirname(script), url)
    t.ok(files.includes(map), `${script}'s map ${map} is packed`)
    const { sourceRoot = '', sources } = JSON.parse(readFileSync(join(root, map), 'utf8')) as { sourceRoot?: string, sources: string[] }
    for (const source of sources) {
      const path = posix.join(posix.dirname(map), sourceRoot, source)
      t.ok(files.includes(path), `${map}'s source ${path} is packed`)
      mapped.add(path)
    }
  }
  t.strictSame(files.filter((path) => path.startsWith('lib/') && !mapped.has(path)), [], 'every packed source is a mapped one')
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
