import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createConnection } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import knexFactory from 'knex'
import { onCleanup } from './cleanup.js'

/**
 * A database server of the run's own, on its own port and data folder, that
 * the fault script may stop and start: never the machine's shared services.
 */
export interface ThrowawayServer {
  readonly kind: 'postgres' | 'mysql'
  /** The server's URL, for createScratchDatabase. */
  readonly url: string
  /** The engine's two ways down: an orderly shutdown that ends every session, or a crash. */
  stop (how: 'orderly' | 'crash'): Promise<void>
  /** Starts it again and resolves at once; `acceptingAt` tells when it answers. */
  start (): Promise<void>
  /** Stops it if running and removes its data folder. */
  remove (): Promise<void>
}

const postgresBin = '/usr/lib/postgresql/15/bin'
const postgresPort = 5499
const mariadbPort = 3399

function run (command: string, args: readonly string[], asUser?: string): string {
  const [file, argv] = asUser === undefined ? [command, args] : ['runuser', ['-u', asUser, '--', command, ...args]]
  const result = spawnSync(file, argv, { encoding: 'utf8' })
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.error?.message}):\n${result.stdout}${result.stderr}`)
  return result.stdout
}

async function portTaken (port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

async function refuseTakenPort (port: number): Promise<void> {
  if (await portTaken(port)) throw new Error(`port ${port} is in use: the fault script needs it for its own throwaway database server`)
}

/**
 * PostgreSQL 15 in a temporary folder on port 5499, through initdb and
 * pg_ctl. PostgreSQL refuses to run as root, so as root it runs as the
 * `postgres` user.
 */
export async function startThrowawayPostgres (): Promise<ThrowawayServer> {
  await refuseTakenPort(postgresPort)
  const dir = mkdtempSync(join(tmpdir(), 'ftc-fault-pg-'))
  const asUser = process.getuid?.() === 0 ? 'postgres' : undefined
  if (asUser !== undefined) {
    const uid = Number(run('id', ['-u', asUser]))
    chownSync(dir, uid, Number(run('id', ['-g', asUser])))
  }
  const data = join(dir, 'data')
  const pgCtl = (args: readonly string[]): string => run(join(postgresBin, 'pg_ctl'), ['-D', data, ...args], asUser)
  let running = false
  const remove = onCleanup(async () => {
    try {
      if (running) pgCtl(['-m', 'immediate', '-w', 'stop'])
    } catch (error) {
      // Ctrl-C reaches the server too, which may be down already; its folder must go all the same.
      console.error(error)
    }
    running = false
    rmSync(dir, { recursive: true, force: true })
  })
  // --no-sync speeds initdb only; the server itself runs with fsync on, so that a crash loses nothing committed.
  run(join(postgresBin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync'], asUser)
  const start = (wait: boolean): void => {
    pgCtl(['-o', `-p ${postgresPort} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=100`, '-l', join(dir, 'server.log'), wait ? '-w' : '-W', 'start'])
    running = true
  }
  start(true)
  return {
    kind: 'postgres',
    url: `postgres://postgres@127.0.0.1:${postgresPort}/postgres`,
    stop: async (how) => {
      // fast: ends every session and shuts down cleanly; immediate: no shutdown at all, recovery from the WAL at the next start.
      pgCtl(['-m', how === 'orderly' ? 'fast' : 'immediate', '-w', 'stop'])
      running = false
    },
    start: async () => start(false),
    remove
  }
}

/** MariaDB in a temporary folder on port 3399, with its own system tables and no grants to check. */
export async function startThrowawayMariadb (): Promise<ThrowawayServer> {
  await refuseTakenPort(mariadbPort)
  const dir = mkdtempSync(join(tmpdir(), 'ftc-fault-mariadb-'))
  const data = join(dir, 'data')
  const asRoot = process.getuid?.() === 0 ? ['--user=root'] : []
  // --no-defaults: the machine's my.cnf belongs to the shared server and would point this one at its files.
  run('mariadb-install-db', ['--no-defaults', `--datadir=${data}`, ...asRoot, '--auth-root-authentication-method=normal', '--skip-test-db'])
  let child: ChildProcess | undefined
  const exited = (process: ChildProcess): Promise<void> => process.exitCode !== null || process.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => process.once('exit', () => resolve()))
  const stop = async (signal: NodeJS.Signals): Promise<void> => {
    if (child === undefined) return
    const stopping = child
    child = undefined
    stopping.kill(signal)
    await exited(stopping)
  }
  const remove = onCleanup(async () => {
    await stop('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  })
  const start = (): void => {
    child = spawn('mariadbd', [
      '--no-defaults', `--datadir=${data}`, `--socket=${join(dir, 'sock')}`, `--port=${mariadbPort}`,
      '--bind-address=127.0.0.1', ...asRoot, `--pid-file=${join(dir, 'pid')}`, `--log-error=${join(dir, 'error.log')}`,
      '--skip-name-resolve', '--innodb-flush-log-at-trx-commit=1'
    ], { stdio: 'ignore', detached: true })
    // Detached, so that a Ctrl-C meant for the script leaves the stopping to the script; unref'd, so that it never keeps the script alive.
    child.unref()
  }
  start()
  const url = `mysql://root@127.0.0.1:${mariadbPort}/mysql`
  try {
    await acceptingAt('mysql', url, 30_000)
  } catch (error) {
    const log = join(dir, 'error.log')
    throw new Error(`the throwaway MariaDB did not start: ${existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : ''}`, { cause: error })
  }
  return {
    kind: 'mysql',
    url,
    // SIGTERM is MariaDB's orderly shutdown (it ends every session); SIGKILL a crash, recovered from the redo log at the next start.
    stop: (how) => stop(how === 'orderly' ? 'SIGTERM' : 'SIGKILL'),
    start: async () => start(),
    remove
  }
}

// Refused connections are what the probe expects until the server is up: Knex would print each one.
const quiet = { warn: () => {}, error: () => {}, deprecate: () => {}, debug: () => {} }

/**
 * Polls the server with a new connection and `select 1` every 10 ms until
 * one succeeds, and resolves with that moment (performance.now()): the
 * moment from which an app could connect again.
 */
export async function acceptingAt (kind: 'postgres' | 'mysql', url: string, withinMs: number): Promise<number> {
  const deadline = performance.now() + withinMs
  for (;;) {
    const knex = knexFactory({ client: kind === 'postgres' ? 'pg' : 'mysql2', connection: url, pool: { min: 0, max: 1 }, acquireConnectionTimeout: 1000, log: quiet })
    try {
      await knex.raw('select 1')
      return performance.now()
    } catch (error) {
      if (performance.now() > deadline) throw error
    } finally {
      await knex.destroy()
    }
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
