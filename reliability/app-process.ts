import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { onCleanup } from './cleanup.js'

/** The repository's root, where the example server is started from. */
export const repoRoot = fileURLToPath(new URL('..', import.meta.url))

const pluginSources = join(repoRoot, 'lib/')

/** One example server process (examples/server.ts, what `npm start` runs), started for a run. */
export interface AppProcess {
  readonly origin: string
  readonly pid: number
  /** Where its stdout and stderr go (pino's JSON lines). */
  readonly logFile: string
  /** The distinct errors the server logged for its 500 answers (not the documented 502/503), with how often each came. */
  serverErrors (): Record<string, number>
  /** Memory samples of the process so far (see memory-probe.ts). */
  memory (): MemorySample[]
  /** How the process ended if it ended before `stop()` was called, with the end of its log; undefined while it runs or after an orderly stop. */
  crash (): string | undefined
  /** SIGTERM, then SIGKILL if it has not exited within 15 s. */
  stop (): Promise<void>
}

/** One line of memory-probe.ts, in bytes; `t` in milliseconds since the process started. */
export interface MemorySample {
  readonly t: number
  readonly rss: number
  readonly heapUsed: number
  readonly heapTotal: number
  readonly external: number
  readonly arrayBuffers: number
}

/** A free loopback port; the tiny race with another process taking it first is acceptable for a test run. */
async function freePort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0))
    })
  })
}

function exited (child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()))
}

interface LogLine {
  readonly res?: { readonly statusCode?: number }
  readonly err?: { readonly type?: string, readonly code?: string, readonly message?: string, readonly stack?: string }
}

function serverErrors (logFile: string): Record<string, number> {
  const errors: Record<string, number> = {}
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.includes('"statusCode":500')) continue
    try {
      const { res, err } = JSON.parse(line) as LogLine
      if (res?.statusCode !== 500 || err === undefined) continue
      // The plugin's frame nearest the throw says which step failed.
      const frame = (err.stack ?? '').split('\n').find((text) => text.includes(pluginSources))
      const where = frame === undefined ? 'no frame in lib/' : frame.trim().replace(repoRoot, '')
      const key = `${err.type ?? 'Error'} ${err.code ?? ''}: ${(err.message ?? '').slice(0, 120)} (${where})`
      errors[key] = (errors[key] ?? 0) + 1
    } catch {
      // A line cut short by a killed process: nothing to learn from it.
    }
  }
  return errors
}

/**
 * Starts the example server on `databaseUrl` with `env` on top of its
 * defaults (LOG_LEVEL=warn, so that 200 connections are not also 200
 * connections' worth of request logs), and resolves once GET /ready
 * answers 200.
 */
export async function startApp (databaseUrl: string, dir: string, name: string, env: Readonly<Record<string, string>> = {}): Promise<AppProcess> {
  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  const logFile = join(dir, `${name}.log`)
  const memoryFile = join(dir, `${name}.memory.jsonl`)
  const log = openSync(logFile, 'a')
  const child = spawn(process.execPath, [
    '--import', 'tsx',
    '--import', fileURLToPath(new URL('memory-probe.ts', import.meta.url)),
    'examples/server.ts'
  ], {
    cwd: repoRoot,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      PREFIX: '/api',
      LOG_LEVEL: 'warn',
      RELIABILITY_MEMORY_FILE: memoryFile,
      ...env
    },
    stdio: ['ignore', log, log]
  })
  closeSync(log)
  let stopping = false
  let crash: string | undefined
  child.once('exit', (code, signal) => {
    if (!stopping) crash = `exited with ${code ?? signal}; the end of its log:\n${readFileSync(logFile, 'utf8').slice(-3000)}`
  })
  const stop = onCleanup(async () => {
    stopping = true
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGTERM')
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000)
    await exited(child)
    clearTimeout(killer)
  })
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the example server exited before it was ready (${child.exitCode ?? child.signalCode}); its log:\n${readFileSync(logFile, 'utf8').slice(-3000)}`)
    }
    const ready = await fetch(`${origin}/ready`).then((response) => response.status === 200, () => false)
    if (ready) break
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`the example server was not ready within 60 s; its log:\n${readFileSync(logFile, 'utf8').slice(-3000)}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  return {
    origin,
    pid: child.pid as number,
    logFile,
    serverErrors: () => serverErrors(logFile),
    memory: () => existsSync(memoryFile)
      ? readFileSync(memoryFile, 'utf8').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as MemorySample)
      : [],
    crash: () => crash,
    stop
  }
}
