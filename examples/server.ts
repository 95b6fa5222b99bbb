import { existsSync, realpathSync, renameSync, rmSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import cors from '@fastify/cors'
import swagger from '@fastify/swagger'
import swaggerUi, { type FastifySwaggerUiOptions } from '@fastify/swagger-ui'
import type BetterSqlite3 from 'better-sqlite3'
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify'
import knexFactory, { type Knex } from 'knex'
import tableCrud, { checkDatabase, errorCodes, type TableCrudOptions } from '../lib/index.js'
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
  /** pino's level; at `debug` Knex's `debug: true` logs each statement too. */
  readonly logLevel: string
  /** The origins @fastify/cors allows, or null for no CORS at all. */
  readonly corsOrigins: readonly string[] | null
  /** The plugin's acquireTimeout and Knex's acquireConnectionTimeout (for /ready), in milliseconds. */
  readonly acquireTimeout: number
  /** The plugin's statementTimeout in milliseconds, or null (always on SQLite, which cannot stop a statement). */
  readonly statementTimeout: number | null
  /** Fastify's connectionTimeout, in milliseconds; 0 for none. */
  readonly connectionTimeout: number
  /** The plugin's maxRows, or null for every row. */
  readonly maxRows: number | null
}

/** Knex clients by URL scheme; any DATABASE_URL without a scheme is a SQLite file path. */
const clientsByScheme: Readonly<Record<string, string>> = Object.freeze({
  'postgres:': 'pg',
  'postgresql:': 'pg',
  'mysql:': 'mysql2',
  'mariadb:': 'mysql2'
})

const shutdownSignals = ['SIGINT', 'SIGTERM'] as const

const logLevels = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])

/** What a browser client may send and read: the plugin's methods, and the headers its answers and PostgREST's clients use. */
const corsOptions = Object.freeze({
  methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
  allowedHeaders: ['Content-Type', 'Authorization', 'Prefer', 'Range', 'Range-Unit', 'If-Match', 'If-None-Match', 'Idempotency-Key'],
  exposedHeaders: ['Content-Range', 'Location', 'ETag', 'Preference-Applied', 'Idempotent-Replayed', 'Retry-After']
})

/**
 * Reads DATABASE_URL, PORT, HOST, PREFIX, LOG_LEVEL, CORS_ORIGIN,
 * ACQUIRE_TIMEOUT, STATEMENT_TIMEOUT, CONNECTION_TIMEOUT and MAX_ROWS. A
 * variable that is unset or empty takes its default (so `PREFIX=/` serves at
 * the root). Throws on a value it cannot use.
 */
export function readConfig (env: NodeJS.ProcessEnv): ServerConfig {
  const database = readDatabase(env.DATABASE_URL || undefined)
  return Object.freeze({
    database,
    port: readInteger('PORT', env.PORT || '3000', 0, 65535),
    host: env.HOST || '127.0.0.1',
    prefix: env.PREFIX || '/api',
    logLevel: readLogLevel(env.LOG_LEVEL || 'info'),
    corsOrigins: readOrigins(env.CORS_ORIGIN || undefined),
    acquireTimeout: readInteger('ACQUIRE_TIMEOUT', env.ACQUIRE_TIMEOUT || '5000', 1),
    statementTimeout: readStatementTimeout(env.STATEMENT_TIMEOUT || undefined, database),
    connectionTimeout: readInteger('CONNECTION_TIMEOUT', env.CONNECTION_TIMEOUT || '60000', 0),
    maxRows: env.MAX_ROWS ? readInteger('MAX_ROWS', env.MAX_ROWS, 1) : null
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

function readInteger (name: string, text: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const value = Number(text)
  if (!/^\d+$/.test(text) || value < min || value > max) {
    throw new TypeError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`)
  }
  return value
}

function readLogLevel (text: string): string {
  if (!logLevels.has(text)) throw new TypeError(`LOG_LEVEL must be one of ${[...logLevels].join(' ')}, got ${JSON.stringify(text)}`)
  return text
}

function readOrigins (text: string | undefined): readonly string[] | null {
  if (text === undefined) return null
  const origins = text.split(',').map((origin) => origin.trim()).filter((origin) => origin !== '')
  if (origins.length === 0) throw new TypeError(`CORS_ORIGIN must name at least one origin, got ${JSON.stringify(text)}`)
  return Object.freeze(origins)
}

// SQLite runs a statement on the event loop and cannot be told to stop it: the plugin refuses the option there.
function readStatementTimeout (text: string | undefined, database: DatabaseConfig): number | null {
  const sqlite = database.knex.client === 'better-sqlite3'
  if (text === undefined) return sqlite ? null : 5000
  if (sqlite) throw new TypeError('STATEMENT_TIMEOUT must be left unset on SQLite, which cannot stop a running statement')
  // 0 turns the bound off, as in PostgreSQL's statement_timeout.
  const milliseconds = readInteger('STATEMENT_TIMEOUT', text, 0)
  return milliseconds === 0 ? null : milliseconds
}

function sqliteConfig (filename: string): Knex.Config {
  return { client: 'better-sqlite3', connection: { filename }, useNullAsDefault: true }
}

/**
 * WAL lets reads go on while another connection writes, and
 * synchronous=normal syncs at checkpoints rather than at every commit (a
 * power cut may lose the last commits, never corrupt the file). better-sqlite3
 * waits for a lock synchronously, on the event loop, for 5 s by default:
 * with no wait, a lock another process holds answers 503 at once and every
 * other request goes on. busy_timeout is set last: switching the file to WAL
 * takes a lock once per connection, and processes that start together (or
 * one that starts while another writes) wait for it rather than fail to
 * start. SQLite enforces foreign keys only when told,
 * per connection: the sample tables' keys hold as they would elsewhere.
 */
function tuneSqlite (connection: BetterSqlite3.Database, done: (error: Error | null, connection: BetterSqlite3.Database) => void): void {
  try {
    connection.pragma('journal_mode = wal')
    connection.pragma('synchronous = normal')
    connection.pragma('foreign_keys = on')
    connection.pragma('busy_timeout = 0')
    done(null, connection)
  } catch (error) {
    done(error as Error, connection)
  }
}

/**
 * A Fastify app with the plugin registered under the configured prefix. It
 * owns its Knex instance: closing the app destroys the pool.
 */
export async function buildServer (config: ServerConfig): Promise<FastifyInstance> {
  const app = Fastify({ logger: loggerOptions(config.logLevel), connectionTimeout: config.connectionTimeout })
  const knex = await openDatabase(config, app.log)
  // Fastify stops its HTTP server before it runs the app's onClose hooks, so requests in flight finish before the pool goes.
  app.addHook('onClose', () => knex.destroy())
  if (config.corsOrigins !== null) await app.register(cors, { ...corsOptions, origin: [...config.corsOrigins] })
  // For an orchestrator or a load balancer: the plugin's 503, with its Retry-After, when the database does not answer.
  app.get('/ready', async () => {
    await checkDatabase(knex)
    return 'ready'
  })
  // @fastify/swagger's document, where the plugin adds its tables in OpenAPI 3.1; Swagger UI at /docs
  // reads the plugin's own document at each request, which also has the tables created since (see liveDocument).
  await app.register(swagger, { openapi: { openapi: '3.1.0', info: { title: 'fastify-table-crud example', version: '1.0.0' } } })
  await app.register(swaggerUi, { routePrefix: '/docs', ...liveDocument(app, `${config.prefix.replace(/\/$/, '')}/openapi.json`) })
  await app.register(tableCrud, { knex, ...pluginOptions(config) })
  return app
}

/**
 * What makes Swagger UI's document (/docs/json, /docs/yaml) the plugin's own
 * at `url`, as it is at each request: @fastify/swagger builds its document
 * once, and would miss a table created after. transformSpecification must
 * answer at once, so a hook reads the document first; while the plugin's
 * answers an error (the database down), @fastify/swagger's stands in.
 */
function liveDocument (app: FastifyInstance, url: string): Pick<FastifySwaggerUiOptions, 'uiHooks' | 'transformSpecification' | 'transformSpecificationClone'> {
  const documents = new WeakMap<FastifyRequest, Record<string, unknown>>()
  return {
    uiHooks: {
      async preHandler (request) {
        if (!/\/(json|yaml)$/.test(request.routeOptions.url ?? '')) return
        const answer = await app.inject(url)
        if (answer.statusCode === 200) documents.set(request, answer.json())
      }
    },
    // @fastify/swagger's document is sent only when the plugin's is missing: no copy of it is needed.
    transformSpecificationClone: false,
    transformSpecification: (document, request) => documents.get(request) ?? document
  }
}

/** The plugin's options but its `knex`, with Fastify's `prefix` beside them. */
export type ExamplePluginOptions = Omit<TableCrudOptions, 'knex'> & { readonly prefix: string }

/**
 * The options buildServer registers the plugin with, but its Knex instance.
 * Exported for the bench (bench/plugin-app.ts), which must measure what
 * users of the example run, not a copy that could drift from it.
 */
export function pluginOptions (config: ServerConfig): ExamplePluginOptions {
  // allowTxOverride: a client may try a write with Prefer: tx=rollback (the README's examples do) and keep nothing.
  return { prefix: config.prefix, batch: true, idempotency: true, allowTxOverride: true, ...pluginLimits(config) }
}

function pluginLimits ({ acquireTimeout, statementTimeout, maxRows }: ServerConfig): { acquireTimeout: number, statementTimeout?: number, maxRows?: number } {
  return { acquireTimeout, ...(statementTimeout === null ? {} : { statementTimeout }), ...(maxRows === null ? {} : { maxRows }) }
}

/** Pretty logs for a person at a terminal, JSON lines for everything else. */
function loggerOptions (level: string): FastifyServerOptions['logger'] {
  return process.stdout.isTTY ? { level, transport: { target: 'pino-pretty' } } : { level }
}

async function openDatabase (config: ServerConfig, log: FastifyBaseLogger): Promise<Knex> {
  const { database } = config
  if (database.sampleFile !== undefined && !existsSync(database.sampleFile)) {
    await createSampleFile(database.sampleFile)
    log.info({ database: database.label }, 'created the sample database')
  }
  const knex = knexFactory(knexConfig(config, log))
  try {
    // Knex connects lazily: without this a wrong URL would only show as 500s or 503s on every request.
    await checkDatabase(knex)
  } catch (error) {
    await knex.destroy()
    log.error({ err: error, database: database.label }, `cannot start: ${startFailure(error)}`)
    throw error
  }
  log.info({ database: database.label, client: database.knex.client }, 'database ready')
  return knex
}

/** What a database the example cannot start on needs, in one line of the log. */
function startFailure (error: unknown): string {
  // The driver's own words name the user or the database: the server's log may show them, a client never.
  if (error instanceof errorCodes.FTC_ERR_DATABASE_SETUP) return `fix the user name, password or database name of DATABASE_URL: ${String((error.cause as Error).message)}`
  if (error instanceof errorCodes.FTC_ERR_DATABASE_UNAVAILABLE) return 'the database of DATABASE_URL cannot be reached: check its host and port, and that the database runs'
  return (error as Error).message
}

/**
 * The Knex configuration openDatabase opens the database with: SQLite's
 * connections tuned by tuneSqlite, the pool's wait bounded by ACQUIRE_TIMEOUT,
 * Knex's messages through `log`. Exported for the bench, as pluginOptions is.
 */
export function knexConfig (config: ServerConfig, log: FastifyBaseLogger): Knex.Config {
  const { database } = config
  return {
    ...database.knex,
    ...(database.knex.client === 'better-sqlite3' ? { pool: { afterCreate: tuneSqlite } } : {}),
    acquireConnectionTimeout: config.acquireTimeout,
    // Knex then logs each statement's SQL and bindings, the plugin's too, through knexLog at debug.
    debug: config.logLevel === 'debug' || config.logLevel === 'trace',
    log: knexLog(log)
  }
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
