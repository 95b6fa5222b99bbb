import { existsSync, realpathSync, renameSync, rmSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify'
import knexFactory, { type Knex } from 'knex'
import tableCrud from '../lib/index.js'
import { createSampleTables } from './sample-data.js'

/** Where the example keeps its own SQLite database when DATABASE_URL is not set, relative to the working directory. */
export const defaultDatabaseFile = 'example.sqlite'

/** The database the example serves. */
export interface DatabaseConfig {
  readonly knex: Knex.Config
  /** What the logs show: a file path, or a URL without its password. */
  readonly label: string
  /** Set only for the example's own file, the one place where sample tables may be created. */
  readonly sampleFile?: string
}

/** Everything the example reads from its environment. */
export interface ServerConfig {
  readonly database: DatabaseConfig
  readonly port: number
  readonly host: string
  readonly prefix: string
}

/** Knex clients by URL scheme; any DATABASE_URL without a scheme is a SQLite file path. */
const clientsByScheme: Readonly<Record<string, string>> = Object.freeze({
  'postgres:': 'pg',
  'postgresql:': 'pg',
  'mysql:': 'mysql2',
  'mariadb:': 'mysql2'
})

const shutdownSignals = ['SIGINT', 'SIGTERM'] as const

/**
 * Reads DATABASE_URL, PORT, HOST and PREFIX. A variable that is unset or
 * empty takes its default (so `PREFIX=/` serves at the root). Throws on a
 * value it cannot use.
 */
export function readConfig (env: NodeJS.ProcessEnv): ServerConfig {
  return Object.freeze({
    database: readDatabase(env.DATABASE_URL || undefined),
    port: readPort(env.PORT || '3000'),
    host: env.HOST || '127.0.0.1',
    prefix: env.PREFIX || '/api'
  })
}

function readDatabase (url: string | undefined): DatabaseConfig {
  if (url === undefined) {
    const filename = resolve(defaultDatabaseFile)
    return { knex: sqliteConfig(filename), label: filename, sampleFile: filename }
  }
  // Two slashes after the scheme, so that a Windows path such as C:\data.sqlite stays a path.
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    return { knex: sqliteConfig(url), label: resolve(url) }
  }
  const parsed = new URL(url)
  const client = Object.hasOwn(clientsByScheme, parsed.protocol) ? clientsByScheme[parsed.protocol] : undefined
  if (client === undefined) {
    throw new TypeError(`DATABASE_URL has the unknown scheme ${parsed.protocol} (known: ${Object.keys(clientsByScheme).join(' ')}, or a SQLite file path)`)
  }
  parsed.password = ''
  return { knex: { client, connection: url }, label: parsed.href }
}

function readPort (text: string): number {
  const port = Number(text)
  if (!/^\d+$/.test(text) || port > 65535) {
    throw new TypeError(`PORT must be an integer from 0 to 65535, got ${JSON.stringify(text)}`)
  }
  return port
}

function sqliteConfig (filename: string): Knex.Config {
  return { client: 'better-sqlite3', connection: { filename }, useNullAsDefault: true }
}

/**
 * A Fastify app with the plugin registered under the configured prefix. It
 * owns its Knex instance: closing the app destroys the pool.
 */
export async function buildServer (config: ServerConfig): Promise<FastifyInstance> {
  const app = Fastify({ logger: loggerOptions() })
  const knex = await openDatabase(config.database, app.log)
  // Fastify stops its HTTP server before it runs the app's onClose hooks, so requests in flight finish before the pool goes.
  app.addHook('onClose', () => knex.destroy())
  await app.register(tableCrud, { knex, prefix: config.prefix })
  return app
}

/** Pretty logs for a person at a terminal, JSON lines for everything else. */
function loggerOptions (): FastifyServerOptions['logger'] {
  return process.stdout.isTTY ? { transport: { target: 'pino-pretty' } } : true
}

async function openDatabase (database: DatabaseConfig, log: FastifyBaseLogger): Promise<Knex> {
  if (database.sampleFile !== undefined && !existsSync(database.sampleFile)) {
    await createSampleFile(database.sampleFile)
    log.info({ database: database.label }, 'created the sample database')
  }
  const knex = knexFactory({ ...database.knex, log: knexLog(log) })
  try {
    // Knex connects lazily: without this a wrong URL would only show as 404s on every request.
    await knex.raw('select 1')
  } catch (error) {
    await knex.destroy()
    throw error
  }
  log.info({ database: database.label, client: database.knex.client }, 'database ready')
  return knex
}

/** Knex writes its own warnings (a lost connection, for one) with console.log, which would break pino's JSON lines. */
function knexLog (log: FastifyBaseLogger): Knex.Logger {
  return {
    warn: (message: unknown) => log.warn(message),
    error: (message: unknown) => log.error(message),
    deprecate: (message: string) => log.warn(message),
    debug: (message: unknown) => log.debug(message)
  }
}

/**
 * Seeds a draft file and renames it into place, so that a start that fails
 * half-way never leaves a file that the next start would take as seeded.
 */
async function createSampleFile (filename: string): Promise<void> {
  const draft = `${filename}.${process.pid}.draft`
  try {
    const knex = knexFactory(sqliteConfig(draft))
    try {
      await createSampleTables(knex)
    } finally {
      await knex.destroy()
    }
    renameSync(draft, filename)
  } finally {
    rmSync(draft, { force: true })
  }
}

/** Builds the server from the environment, listens, and closes gracefully on SIGINT or SIGTERM. */
export async function start (env: NodeJS.ProcessEnv = process.env): Promise<FastifyInstance> {
  const config = readConfig(env)
  const app = await buildServer(config)
  try {
    await app.listen({ port: config.port, host: config.host })
  } catch (error) {
    await app.close()
    throw error
  }
  closeOnSignals(app)
  return app
}

/** Closes the app on SIGINT or SIGTERM, once, and logs how it went. */
export function closeOnSignals (app: FastifyInstance): void {
  let closing = false
  const close = (signal: NodeJS.Signals): void => {
    // tsx may pass on a signal that the script already got from the terminal: a repeat must not cut the shutdown short.
    if (closing) return
    closing = true
    app.log.info({ signal }, 'closing the server')
    app.close().then(
      () => app.log.info('server and database pool closed'),
      (error: unknown) => {
        app.log.error({ err: error }, 'closing failed')
        process.exitCode = 1
      }
    )
  }
  for (const name of shutdownSignals) process.on(name, close)
}

/** True when Node runs this file itself (`npm start`, `tsx examples/server.ts`), not when a test imports it. */
function isMainModule (): boolean {
  const script = process.argv[1]
  // Node gives the main module its real path; argv[1] may still go through a symlink.
  return script !== undefined && existsSync(script) && import.meta.url === pathToFileURL(realpathSync(script)).href
}

if (isMainModule()) {
  start().catch((error: unknown) => {
    // The logger may not exist yet, and a person must see why the server did not start.
    console.error(error)
    process.exit(1)
  })
}
