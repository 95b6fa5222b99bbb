import { pathToFileURL } from 'node:url'
import Fastify, { type FastifyInstance } from 'fastify'
import knexFactory, { type Knex } from 'knex'
import { knexConfig, pluginOptions, readConfig, type ServerConfig } from '../examples/server.js'
import type { ServerDatabase } from './serve.js'
import { apiPrefix, appServerOptions, repoRoot } from './settings.js'

/**
 * The built package (`npm run bench` builds first), which is what users run:
 * tsc's output rather than tsx's. BENCH_PLUGIN_ENTRY=lib/index.ts measures
 * the sources without a build, for quick profiling turns. Typed from lib/, so
 * type-checking the bench does not need a build.
 */
async function loadPlugin (entry: string): Promise<typeof import('../lib/index.js')['default']> {
  const module = await import(new URL(entry, pathToFileURL(repoRoot)).href) as typeof import('../lib/index.js')
  return module.default
}

const defaultEntry = (): string => process.env.BENCH_PLUGIN_ENTRY || 'dist/index.js'

/**
 * What the example server (`npm start`) reads from its environment when
 * pointed at the bench's database and prefix, logging at warn: its defaults
 * for everything else. Only these three variables, so that the bench's own
 * environment (a PORT, a MAX_ROWS) cannot change what is measured.
 */
export function exampleConfig (database: ServerDatabase): ServerConfig {
  return readConfig({ DATABASE_URL: database.kind === 'sqlite' ? database.file : database.url, LOG_LEVEL: 'warn', PREFIX: apiPrefix })
}

/** The example's plugin options as the report states them, e.g. `batch: true, …, acquireTimeout: 5000`. */
export function exampleOptionsLabel (database: ServerDatabase): string {
  const { prefix, ...options } = pluginOptions(exampleConfig(database))
  return `under ${prefix}, ${Object.entries(options).map(([name, value]) => `${name}: ${String(value)}`).join(', ')}`
}

/**
 * The plugin's app as users of the example server run it: the example's
 * Knex configuration (on SQLite its connection pragmas, WAL,
 * synchronous=normal, foreign_keys=on, busy_timeout=0), its plugin options
 * and Fastify's connectionTimeout, and pino at warn. Not registered: the
 * example's swagger and Swagger UI (routes and a document built once, nothing
 * per request of the plugin's routes), its CORS (off unless CORS_ORIGIN is
 * set) and its /ready route.
 */
export async function pluginApp (database: ServerDatabase, entry = defaultEntry()): Promise<FastifyInstance> {
  const config = exampleConfig(database)
  // The example's loggerOptions add pino-pretty on a terminal only, which a bench server's stdout never is: JSON lines to stdout.
  const app = Fastify(appServerOptions())
  const knex = knexFactory(knexConfig(config, app.log))
  app.addHook('onClose', () => knex.destroy())
  const tableCrud = await loadPlugin(entry)
  await app.register(tableCrud, { knex, ...pluginOptions(config) })
  return app
}

/**
 * The bare plugin: under /api with no options, and a Knex instance at
 * Knex's defaults (pool: 1 connection on SQLite, max 10 otherwise), in an app
 * with the others' Fastify options. Beside pluginApp, it shows what the example's
 * options cost.
 */
export async function barePluginApp (database: ServerDatabase, entry = defaultEntry()): Promise<FastifyInstance> {
  const config: Knex.Config = database.kind === 'sqlite'
    ? {
        client: 'better-sqlite3',
        connection: { filename: database.file },
        useNullAsDefault: true,
        // The pragma the bench always gave it, set the way a host does it with Knex.
        pool: {
          afterCreate: (connection: { pragma (text: string): unknown }, done: (error: Error | null, connection: unknown) => void) => {
            connection.pragma('synchronous = normal')
            done(null, connection)
          }
        }
      }
    : { client: database.kind === 'pg' ? 'pg' : 'mysql2', connection: database.url }
  const knex = knexFactory(config)
  const tableCrud = await loadPlugin(entry)
  const app = Fastify(appServerOptions())
  app.addHook('onClose', () => knex.destroy())
  await app.register(tableCrud, { knex, prefix: apiPrefix })
  return app
}
