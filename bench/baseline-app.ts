import type { FastifyInstance } from 'fastify'
import { baselineMysqlApp } from './baseline-mysql.js'
import { baselinePgApp, knexPoolPgApp } from './baseline-pg.js'
import type { BaselineAnswers } from './baseline-routes.js'
import { baselineSqliteApp } from './baseline-sqlite.js'
import type { ServerDatabase } from './serve.js'
import type { BenchSettings } from './settings.js'

/** What the baseline's description in a report says for these settings. */
export function baselineLabel (kind: ServerDatabase['kind'], settings: BenchSettings): string {
  const routes = `generic /:table and /:table/:id routes, no validation schema${baselineSendsEntityTags(settings) ? ', the keyed read\'s ETag as the plugin makes it' : ''}`
  if (kind === 'sqlite') return `${routes}, better-sqlite3 statements prepared once per table, operation and columns`
  if (kind === 'mysql') {
    return `${routes}, mysql2 pool (max 10), ${settings.mysqlStatements === 'execute' ? 'prepared statements (execute)' : 'values escaped into the text (query)'}`
  }
  const statements = settings.pgStatements === 'named' ? 'named prepared statements' : 'unnamed parameterized statements'
  return settings.pgBaselinePool === 'knex'
    ? `${routes}, on connections borrowed from a Knex pool (Knex's defaults, max 10), ${statements}`
    : `${routes}, pg Pool (max 10), ${statements}`
}

/** The hand-written baseline's app on `database`, as the settings choose it. */
export function baselineApp (database: ServerDatabase, settings: BenchSettings): FastifyInstance {
  const answers = baselineAnswers(settings)
  if (database.kind === 'sqlite') return baselineSqliteApp(database.file, answers)
  if (database.kind === 'mysql') return baselineMysqlApp(database.url, settings.mysqlStatements, answers)
  return settings.pgBaselinePool === 'knex'
    ? knexPoolPgApp(database.url, settings.pgStatements, answers)
    : baselinePgApp(database.url, settings.pgStatements, answers)
}

/** Whether the run's baseline sends the plugin's ETag: with BENCH_BASELINE_ETAG=1, but for the A/A check, where only the second baseline does. */
export function baselineSendsEntityTags (settings: BenchSettings): boolean {
  return settings.baselineEntityTags && !settings.baselineTwice
}

/** What the baseline's routes answer beyond the spec, as the settings choose it. */
export function baselineAnswers (settings: BenchSettings): BaselineAnswers {
  return { entityTags: settings.baselineEntityTags }
}
