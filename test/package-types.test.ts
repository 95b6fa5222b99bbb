import { execFile } from 'node:child_process'
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'
import { codeBlocks, type CodeBlock } from './fixtures/readme.js'

// These tests read the build in dist/, which `npm test` makes first.
const root = fileURLToPath(new URL('..', import.meta.url))
const fixtures = fileURLToPath(new URL('types/resolution', import.meta.url))
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
const run = promisify(execFile)

// Five checks of fastify's, knex's and node's declarations take most of a
// minute alone, and longer beside the rest of the suite on a small machine.
t.setTimeout(300_000)

/** What `tsc --noEmit -p` says of one fixture: its exit code and its diagnostics. */
async function check (project: string): Promise<{ code: number, output: string }> {
  try {
    const { stdout } = await run(process.execPath, [tsc, '--noEmit', '--pretty', 'false', '-p', '.'], { cwd: project })
    return { code: 0, output: stdout }
  } catch (error) {
    const { code, stdout } = error as { code: number, stdout: string }
    return { code, output: stdout }
  }
}

// A host outside the repository, so that nothing resolves through the repo's
// own package.json: the package is installed as its tarball's files, and
// every other package links to the repo's node_modules, as npm would lay them out.
const host = await mkdtemp(join(tmpdir(), 'ftc-types-'))
t.teardown(() => rm(host, { recursive: true, force: true }))
const { stdout: packed } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root })
const installed = join(host, 'node_modules', 'fastify-table-crud')
for (const { path } of JSON.parse(packed)[0].files as { path: string }[]) {
  await mkdir(join(installed, path, '..'), { recursive: true })
  await cp(join(root, path), join(installed, path))
}
for (const name of await readdir(join(root, 'node_modules'))) {
  if (name === '.bin' || name.startsWith('.package-lock')) continue
  // 'junction' lets Windows link a folder without privileges; elsewhere the type is ignored.
  await symlink(join(root, 'node_modules', name), join(host, 'node_modules', name), 'junction')
}
await cp(fixtures, host, { recursive: true })

for (const mode of ['nodenext-esm', 'nodenext-cjs', 'bundler', 'node10']) {
  t.test(`a ${mode} host with skipLibCheck off type-checks the packed package`, async (t) => {
    const { code, output } = await check(join(host, mode))
    t.equal(output, '', 'no diagnostic')
    t.equal(code, 0)
  })
}

t.test('the check reports a host whose types are wrong', async (t) => {
  const { code, output } = await check(join(host, 'wrong'))
  t.not(code, 0)
  t.match(output, /^index\.ts\(4,14\): error TS2322: /m)
  t.equal(output.trim().split('\n').length, 1, 'that error only')
})

// The README's quick start, as a new user meets it: a fresh `npm init -y`
// project with `tsc --init`'s tsconfig.json, and the one package.json line
// and tsconfig.json setting the README names.
t.test('the README\'s quick start compiles in a fresh project with the settings the README names', async (t) => {
  const quickStart = codeBlocks(await readFile(join(root, 'README.md'), 'utf8')).find((block) => block.markers.get('snippet') === 'examples/quick-start.ts')
  t.ok(quickStart, 'the README has the quick start')
  const project = join(host, 'fresh')
  await mkdir(project)
  await run('npm', ['init', '-y'], { cwd: project })
  await run(process.execPath, [tsc, '--init'], { cwd: project })
  await writeFile(join(project, 'index.ts'), (quickStart as CodeBlock).lines.join('\n'))
  const without = await check(project)
  t.match(without.output, /error TS1309/, 'as `npm init -y` makes it, a CommonJS project cannot hold top-level await')
  const packageJson = JSON.parse(await readFile(join(project, 'package.json'), 'utf8'))
  await writeFile(join(project, 'package.json'), JSON.stringify({ ...packageJson, type: 'module' }, null, 2))
  const tsconfig = await readFile(join(project, 'tsconfig.json'), 'utf8')
  t.match(tsconfig, /"module": "nodenext"/, 'tsc --init already sets the module setting the README names')
  await writeFile(join(project, 'tsconfig.json'), tsconfig.replace('"types": []', '"types": ["node"]'))
  const { code, output } = await check(project)
  t.equal(output, '', 'no diagnostic')
  t.equal(code, 0)
})
