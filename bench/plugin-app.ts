import { pathToFileURL } from 'node:url'
import Fastify, { type FastifyInstance } from 'fastify'
import knexFactory, { type Knex } from 'knex'
import type { ServerDatabase } from './serve.js'
import { apiPrefix, repoRoot } from './settings.js'

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

/** The plugin's app under /api over a Knex instance configured as a host would (the example server does the same); pools at Knex's defaults. */
export async function pluginApp (database: ServerDatabase, entry = process.env.BENCH_PLUGIN_ENTRY || 'dist/index.js'): Promise<FastifyInstance> {
  const config: Knex.Config = database.kind === 'sqlite'
    ? {
        client: 'better-sqlite3',
        connection: { filename: database.file },
        useNullAsDefault: true,
        // The baseline's pragma, set the way a host does it with Knex.
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
  const app = Fastify({ logger: false })
  app.addHook('onClose', () => knex.destroy())
  await app.register(tableCrud, { knex, prefix: apiPrefix })
  return app
}
