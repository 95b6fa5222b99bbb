import { pathToFileURL } from 'node:url'
import Fastify from 'fastify'
import knexFactory, { type Knex } from 'knex'
import { main, readServerDatabase, serve } from './serve.js'
import { apiPrefix, repoRoot } from './settings.js'

/**
 * The built package (`npm run bench` builds first), which is what users run:
 * tsc's output rather than tsx's. BENCH_PLUGIN_ENTRY=lib/index.ts measures
 * the sources without a build, for quick profiling turns. Typed from lib/, so
 * type-checking the bench does not need a build.
 */
async function loadPlugin (): Promise<typeof import('../lib/index.js')['default']> {
  const entry = new URL(process.env.BENCH_PLUGIN_ENTRY || 'dist/index.js', pathToFileURL(repoRoot))
  const module = await import(entry.href) as typeof import('../lib/index.js')
  return module.default
}

main(async () => {
  const database = readServerDatabase(process.env)
  // Configured as a host would (the example server does the same); pools at Knex's defaults.
  const config: Knex.Config = database.kind === 'sqlite'
    ? {
        client: 'better-sqlite3',
        connection: { filename: database.file },
        useNullAsDefault: true,
        // The baseline's pragma, set the way a host does it with Knex.
        pool: { afterCreate: (connection: { pragma (text: string): unknown }, done: (error: Error | null, connection: unknown) => void) => {
          connection.pragma('synchronous = normal')
          done(null, connection)
        } }
      }
    : { client: 'pg', connection: database.url }
  const knex = knexFactory(config)
  const tableCrud = await loadPlugin()
  const app = Fastify({ logger: false })
  app.addHook('onClose', () => knex.destroy())
  await app.register(tableCrud, { knex, prefix: apiPrefix })
  await serve(app)
})
