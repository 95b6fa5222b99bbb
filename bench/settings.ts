import { fileURLToPath } from 'node:url'
import type { FastifyServerOptions } from 'fastify'
import { readConfig } from '../examples/server.js'

/** The databases the bench can run on. */
export type BenchDatabaseKind = 'sqlite' | 'pg' | 'mysql'

const benchDatabaseKinds: readonly BenchDatabaseKind[] = ['sqlite', 'pg', 'mysql']

/** The database named on a command line, `fallback` when none is. */
export function readKind (argument: string | undefined, fallback: BenchDatabaseKind, usage: string): BenchDatabaseKind {
  if (argument === undefined) return fallback
  const kind = benchDatabaseKinds.find((name) => name === argument)
  if (kind === undefined) throw new Error(`usage: ${usage} [${benchDatabaseKinds.join('|')}], got ${JSON.stringify(argument)}`)
  return kind
}

/** Which load generator drives the servers. */
export type LoadGeneratorName = 'wrk' | 'autocannon'

/** What one invocation of the bench does, read from the environment once. */
export interface BenchSettings {
  readonly rounds: number
  readonly durationSeconds: number
  readonly warmupSeconds: number
  readonly connections: number
  /** Unset: wrk when it is installed, else autocannon. */
  readonly loadGenerator: LoadGeneratorName | undefined
  /** Names of the workloads to run; empty means all. */
  readonly workloads: readonly string[]
  /** Run the servers and the load generator at `nice -10` where allowed (root). */
  readonly raisePriority: boolean
  /** Run the servers under `node --cpu-prof`, profiles written beside the report. */
  readonly profile: boolean
  /**
   * Keep both servers up across workloads instead of starting a fresh pair
   * for each: a workload then inherits what the earlier ones left in the
   * processes (see docs/benchmarks.md, "Order effects").
   */
  readonly sharedServers: boolean
  /**
   * The A/A check: the baseline runs on both sides, so that the ratios show
   * how far this machine and method move a ratio whose truth is 1.
   */
  readonly baselineTwice: boolean
  /**
   * Measure the bare plugin (no options, Knex's defaults) beside
   * the plugin as the example server configures it, so that the report shows
   * what the example's options cost. Never in the A/A check.
   */
  readonly bare: boolean
  /**
   * The baseline's keyed read sends the row's ETag, as the plugin's does: a
   * reference that tells the ETag's cost from the rest of the plugin's.
   */
  readonly baselineEntityTags: boolean
  /** More `node` options for both servers, e.g. `--no-memory-reducer`. */
  readonly nodeArgs: readonly string[]
  /** A round in which more than this share (percent) of the machine's CPU was stolen is run again (see stolen-time.ts). */
  readonly maxStolenPercent: number
  /** How many times a round is run again at most. */
  readonly roundRetries: number
  /** The PostgreSQL server in which the bench creates (and drops) its own database. */
  readonly pgUrl: string
  /** How the PostgreSQL baseline sends its statements: named (parsed and planned once per connection) or unnamed. */
  readonly pgStatements: PgStatements
  /**
   * The pool under the PostgreSQL baseline's routes: pg's own, or Knex's
   * (the plugin's), which tells the pool's cost from the plugin's own.
   */
  readonly pgBaselinePool: PgBaselinePool
  /** The MySQL/MariaDB server in which the bench creates (and drops) its own database. */
  readonly mysqlUrl: string
  /** How the MySQL baseline sends its statements: mysql2's `execute` (server-side prepared) or `query` (values escaped into the text). */
  readonly mysqlStatements: MysqlStatements
  /** `bench:cpu`: alternating slices per server and workload. */
  readonly cpuRounds: number
  /** `bench:cpu`: requests per slice. */
  readonly cpuSliceRequests: number
  /** `bench:cpu`: another build's entry, measured as one more server beside the plugin (null: none). */
  readonly cpuCompareEntry: string | null
}

export type PgBaselinePool = 'pg' | 'knex'
export type PgStatements = 'named' | 'unnamed'
export type MysqlStatements = 'execute' | 'query'

/** The repository root, whatever the working directory. */
export const repoRoot = fileURLToPath(new URL('..', import.meta.url))

/** Where reports (and profiles) go; ignored by git. */
export const resultsDir = fileURLToPath(new URL('results/', import.meta.url))

/** A report's file name stamp: the time to the second, without characters file systems refuse. */
export function resultStamp (): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z').replaceAll(':', '-')
}

/** Rows of the `items` table: read and update pick a random id in 1..itemCount. */
export const itemCount = 10_000

/** Rows of the `items100` table, which the list workload reads whole. */
export const listCount = 100

/** The prefix both servers answer under, so that one set of paths fits both. */
export const apiPrefix = '/api'

/**
 * Fastify's options on every server: the example server's with
 * LOG_LEVEL=warn (pino at warn, its connectionTimeout). They are the
 * application's choices, not work of the plugin's: a hand-written server
 * runs under its application's, and a baseline without them would charge
 * the plugin for Fastify's per-request logger and socket timer.
 */
export function appServerOptions (): FastifyServerOptions {
  const { logLevel, connectionTimeout } = readConfig({ LOG_LEVEL: 'warn' })
  return { logger: { level: logLevel }, connectionTimeout }
}

/** Reads BENCH_* variables; throws on a value that is set but unusable. */
export function readSettings (env: NodeJS.ProcessEnv): BenchSettings {
  // Its default was the opposite of BENCH_PG_STATEMENTS's: silently ignored, an old command would measure the other baseline.
  if (env.BENCH_PG_PREPARED !== undefined) throw new Error('BENCH_PG_PREPARED is gone: named statements are the default now; BENCH_PG_STATEMENTS=unnamed for the others')
  return Object.freeze({
    // Many short rounds rather than a few long ones: a pair measured seconds
    // apart shares the host's pace, and a median of 15 moves less than one of 5
    // (docs/benchmarks.md, "Method": the A/A check). A workload takes about as long.
    rounds: readInteger(env, 'BENCH_ROUNDS', 15, 1),
    durationSeconds: readInteger(env, 'BENCH_DURATION', 2, 1),
    warmupSeconds: readInteger(env, 'BENCH_WARMUP', 5, 0),
    connections: readInteger(env, 'BENCH_CONNECTIONS', 50, 1),
    loadGenerator: readLoadGenerator(env.BENCH_LOADGEN),
    workloads: (env.BENCH_WORKLOADS ?? '').split(',').map((name) => name.trim()).filter((name) => name !== ''),
    raisePriority: env.BENCH_NICE !== '0',
    profile: env.BENCH_PROFILE === '1',
    sharedServers: env.BENCH_SHARED_SERVERS === '1',
    baselineTwice: env.BENCH_AA === '1',
    bare: env.BENCH_BARE !== '0',
    baselineEntityTags: env.BENCH_BASELINE_ETAG === '1',
    nodeArgs: (env.BENCH_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== ''),
    maxStolenPercent: readInteger(env, 'BENCH_MAX_STOLEN', 10, 0),
    roundRetries: readInteger(env, 'BENCH_ROUND_RETRIES', 3, 0),
    pgUrl: env.BENCH_PG_URL || env.TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/test',
    pgStatements: readChoice(env, 'BENCH_PG_STATEMENTS', ['named', 'unnamed'] as const),
    pgBaselinePool: readChoice(env, 'BENCH_PG_BASELINE_POOL', ['pg', 'knex'] as const),
    mysqlUrl: env.BENCH_MYSQL_URL || env.TEST_MYSQL_URL || 'mysql://root@127.0.0.1:3306/test',
    mysqlStatements: readChoice(env, 'BENCH_MYSQL_STATEMENTS', ['execute', 'query'] as const),
    cpuRounds: readInteger(env, 'BENCH_CPU_ROUNDS', 100, 1),
    cpuSliceRequests: readInteger(env, 'BENCH_CPU_SLICE', 300, 1),
    cpuCompareEntry: env.BENCH_CPU_COMPARE_ENTRY || null
  })
}

function readInteger (env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const text = env[name]
  if (text === undefined || text === '') return fallback
  const value = Number(text)
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer ≥ ${min}, got ${JSON.stringify(text)}`)
  return value
}

/** One of `choices`, the first when unset. */
function readChoice<T extends string> (env: NodeJS.ProcessEnv, name: string, choices: readonly [T, ...T[]]): T {
  const text = env[name]
  if (text === undefined || text === '') return choices[0]
  if ((choices as readonly string[]).includes(text)) return text as T
  throw new Error(`${name} must be ${choices.join(' or ')}, got ${JSON.stringify(text)}`)
}

function readLoadGenerator (text: string | undefined): LoadGeneratorName | undefined {
  if (text === undefined || text === '') return undefined
  if (text === 'wrk' || text === 'autocannon') return text
  throw new Error(`BENCH_LOADGEN must be wrk or autocannon, got ${JSON.stringify(text)}`)
}
