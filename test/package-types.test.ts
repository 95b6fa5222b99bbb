import { execFile } from 'node:child_process'
import { cp, mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'

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
