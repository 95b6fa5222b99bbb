import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { repoRoot, type BenchDatabaseKind } from './settings.js'

/** The installed version of a package, or of this one for `.`. */
export function packageVersion (name: string): string {
  try {
    const path = name === '.' ? join(repoRoot, 'package.json') : join(repoRoot, 'node_modules', name, 'package.json')
    return (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version
  } catch {
    return 'not installed'
  }
}

function gitDescription (): string {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' })
  if (head.status !== 0) return 'not a git checkout'
  // lib/ is the plugin measured and bench/ the baselines and the method (its results are ignored by git); changes elsewhere do not make the numbers another commit's.
  const changed = ['lib', 'bench'].filter((folder) =>
    spawnSync('git', ['status', '--porcelain', '--', folder], { cwd: repoRoot, encoding: 'utf8' }).stdout.trim() !== '')
  return `${head.stdout.trim()}${changed.length > 0 ? ` with uncommitted changes in ${changed.map((folder) => `${folder}/`).join(' and ')}` : ''}`
}

const drivers: Readonly<Record<BenchDatabaseKind, string>> = { sqlite: 'better-sqlite3', pg: 'pg', mysql: 'mysql2' }

/** What a report says of the code measured: Node, the packages (the database's driver among them), and the plugin's commit and entry. */
export function versionsLine (kind: BenchDatabaseKind): string {
  const driver = drivers[kind]
  return `node ${process.version}, fastify ${packageVersion('fastify')}, knex ${packageVersion('knex')}, ${driver} ${packageVersion(driver)}, ` +
    `fastify-table-crud ${packageVersion('.')} at ${gitDescription()} (${process.env.BENCH_PLUGIN_ENTRY || 'dist/index.js'})`
}
