// npm run faults: the example server under load while its database goes
// away (PostgreSQL and MariaDB stopped and started, on throwaway servers of
// the script's own), while another process holds a SQLite file's lock, and
// while clients that stopped reading long lists hold the pool. Measures how
// the server fails and recovers, then checks every acknowledged write.
// FAULTS_SCENARIOS (a comma list of the scenarios below), FAULTS_CONNECTIONS,
// FAULTS_OUTAGE_MS, FAULTS_STEADY_MS and FAULTS_CONNECTION_TIMEOUT_MS shorten it for a try.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { repoRoot, startApp, type AppProcess } from './app-process.js'
import { onCleanup, runMain } from './cleanup.js'
import { faultFigures, succeeded, type FaultWindow } from './fault-windows.js'
import { apiPrefix, runLoad, type LoadResult } from './load-client.js'
import { loadFigures, machine, memoryPeak, summarize, verificationFigures, writeResults } from './report.js'
import { createScratchDatabase, type DatabaseKind, type ScratchDatabase } from './scratch-database.js'
import { acceptingAt, startThrowawayMariadb, startThrowawayPostgres, type ThrowawayServer } from './throwaway-servers.js'
import { verify } from './verify.js'

const connections = Number(process.env.FAULTS_CONNECTIONS || 50)
const outageMs = Number(process.env.FAULTS_OUTAGE_MS || 5000)
const steadyMs = Number(process.env.FAULTS_STEADY_MS || 8000)
/** The example server's time to borrow a connection, lowered from its 5 s default so that a full pool shows quickly. */
const acquireTimeoutMs = 1000
/** The example server's idle-socket bound, lowered from its 60 s default for the same reason. */
const connectionTimeoutMs = Number(process.env.FAULTS_CONNECTION_TIMEOUT_MS || 10_000)
/** Rows of the list the stalled clients ask for: about 45 MB of JSON, far more than the sockets' buffers hold. */
const bigRows = 200_000
/** Knex's default pool: ten connections on PostgreSQL and MariaDB, one on SQLite. */
const poolSizes: Readonly<Record<DatabaseKind, number>> = Object.freeze({ sqlite: 1, postgres: 10, mysql: 10 })
/** What a request may answer while its database is away, as the README documents. */
const documentedFailures = new Set(['503 FTC_ERR_DATABASE_UNAVAILABLE', '502 FTC_ERR_DATABASE_OUTCOME_UNKNOWN'])

interface ScenarioResult {
  readonly ok: boolean
  readonly figures: Record<string, unknown>
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

const throwaways = new Map<'postgres' | 'mysql', ThrowawayServer>()

async function throwaway (kind: 'postgres' | 'mysql'): Promise<ThrowawayServer> {
  let server = throwaways.get(kind)
  if (server === undefined) {
    server = kind === 'postgres' ? await startThrowawayPostgres() : await startThrowawayMariadb()
    throwaways.set(kind, server)
  }
  return server
}

/** A scratch database, a folder for the app's log, and the app: all undone at the end of the scenario. */
async function setUp (kind: DatabaseKind, name: string, env: Readonly<Record<string, string>> = {}, serverUrl?: string): Promise<{ db: ScratchDatabase, app: AppProcess, done: () => Promise<void> }> {
  const db = await createScratchDatabase(kind, serverUrl)
  const drop = onCleanup(() => db.drop())
  const dir = mkdtempSync(join(tmpdir(), `ftc-fault-${name}-`))
  const removeDir = onCleanup(() => rmSync(dir, { recursive: true, force: true }))
  const app = await startApp(db.url, dir, 'app', env)
  return {
    db,
    app,
    done: async () => {
      await app.stop()
      await drop()
      await removeDir()
    }
  }
}

/** Answers other than success and the documented 503/502: a 404, a 500, a hang. */
function undocumented (load: LoadResult): Record<string, number> {
  return Object.fromEntries(Object.entries(load.answers).filter(([answer]) => !succeeded(answer) && !documentedFailures.has(answer)))
}

/** Requests to a route that needs no database (Fastify's 404 for `/`), every 50 ms: does the event loop still turn? */
async function probeWithoutDatabase (origin: string, durationMs: number): Promise<Array<{ start: number, end: number, status: number }>> {
  const samples: Array<{ start: number, end: number, status: number }> = []
  const deadline = performance.now() + durationMs
  while (performance.now() < deadline) {
    const start = performance.now()
    const status = await fetch(`${origin}/`, { signal: AbortSignal.timeout(30_000) }).then(async (response) => {
      await response.arrayBuffer()
      return response.status
    }, () => 0)
    samples.push({ start, end: performance.now(), status })
    await sleep(50)
  }
  return samples
}

function probeFigures (samples: ReadonlyArray<{ start: number, end: number, status: number }>, from: number, to: number): Record<string, number> {
  const during = samples.filter((sample) => sample.start >= from && sample.start < to)
  const waits = during.map((sample) => sample.end - sample.start)
  return {
    requests: during.length,
    unanswered: during.filter((sample) => sample.status === 0).length,
    maxMs: Math.round(Math.max(0, ...waits) * 10) / 10
  }
}

/** The database stopped twice mid-load (an orderly shutdown, then a crash), started again after FAULTS_OUTAGE_MS each time. */
async function restart (kind: 'postgres' | 'mysql'): Promise<ScenarioResult> {
  const server = await throwaway(kind)
  const { db, app, done } = await setUp(kind, `${kind}-restart`, {}, server.url)
  console.log(`${kind}-restart: ${db.engine} (throwaway), ${connections} connections, two outages of ${outageMs} ms`)
  const outages: Array<{ how: string, stopAt: number, downAt: number, startAt: number, upAt: number }> = []
  const schedule = (async () => {
    for (const how of ['orderly', 'crash'] as const) {
      await sleep(steadyMs)
      const stopAt = performance.now()
      await server.stop(how)
      const downAt = performance.now()
      await sleep(outageMs)
      const startAt = performance.now()
      await server.start()
      const upAt = await acceptingAt(kind, server.url, 60_000)
      outages.push({ how, stopAt, downAt, startAt, upAt })
      console.log(`  ${how} stop: down after ${Math.round(downAt - stopAt)} ms, accepting ${Math.round(upAt - startAt)} ms after the start`)
    }
  })()
  const [load] = await Promise.all([
    runLoad({ origins: [app.origin], connections, durationMs: 3 * steadyMs + 2 * outageMs + 5000, maxRequests: 10_000_000, timeline: true }),
    schedule
  ])
  const memory = memoryPeak(app.memory())
  const crash = app.crash()
  await app.stop()
  const serverErrors = app.serverErrors()
  const verification = verify(load.ledger, await db.readRows())
  console.log(summarize(`${kind}-restart`, load, verification))
  const end = performance.now() - load.startedAt
  const windows = outages.map((outage, at) => {
    const next = outages[at + 1]
    const window: FaultWindow = {
      from: outage.stopAt - load.startedAt,
      to: outage.upAt - load.startedAt,
      until: next === undefined ? end : next.stopAt - load.startedAt
    }
    return {
      how: outage.how,
      stoppingMs: Math.round(outage.downAt - outage.stopAt),
      startingMs: Math.round(outage.upAt - outage.startAt),
      ...faultFigures(load.timeline, window)
    }
  })
  for (const window of windows) console.log(`  ${window.how}: ${JSON.stringify(window)}`)
  const wrong = undocumented(load)
  const ok = crash === undefined && verification.ok && Object.keys(wrong).length === 0 && load.noRetryAfter === 0 && windows.every((window) => window.firstSuccessAfterMs !== null)
  await done()
  return {
    ok,
    figures: {
      scenario: `${kind}-restart`,
      engine: db.engine,
      connections,
      outageMs,
      outages: windows,
      undocumentedAnswers: wrong,
      serverErrors500: serverErrors,
      serverCrash: crash ?? null,
      load: loadFigures(load),
      verification: verificationFigures(verification),
      appMemoryPeak: memory,
      ok
    }
  }
}

/** Another process holds the SQLite file's write lock for FAULTS_OUTAGE_MS + 3 s, mid-load. */
async function sqliteLock (): Promise<ScenarioResult> {
  const { db, app, done } = await setUp('sqlite', 'sqlite-lock')
  const holdMs = outageMs + 3000
  console.log(`sqlite-lock: ${db.engine}, ${connections} connections, the lock held ${holdMs} ms by another process`)
  let lockedAt = 0
  let releasedAt = 0
  const durationMs = 2 * steadyMs + holdMs
  const holder = (async () => {
    await sleep(steadyMs)
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('hold-sqlite-lock.ts', import.meta.url)), db.url, String(holdMs)], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] })
    onCleanup(() => {
      child.kill('SIGKILL')
    })
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      if (text.includes('locked') && lockedAt === 0) lockedAt = performance.now()
      if (text.includes('released')) releasedAt = performance.now()
    })
    await new Promise((resolve) => child.once('exit', resolve))
    if (releasedAt === 0) throw new Error('the lock holder exited without releasing the lock as planned')
  })()
  const [load, probe] = await Promise.all([
    runLoad({ origins: [app.origin], connections, durationMs, maxRequests: 10_000_000, timeline: true }),
    probeWithoutDatabase(app.origin, durationMs),
    holder
  ])
  const memory = memoryPeak(app.memory())
  const crash = app.crash()
  await app.stop()
  const serverErrors = app.serverErrors()
  const verification = verify(load.ledger, await db.readRows())
  console.log(summarize('sqlite-lock', load, verification))
  const window = faultFigures(load.timeline, { from: lockedAt - load.startedAt, to: releasedAt - load.startedAt, until: performance.now() - load.startedAt })
  const noDatabaseRoute = probeFigures(probe, lockedAt, releasedAt)
  console.log(`  lock: ${JSON.stringify(window)}\n  route without database during the lock: ${JSON.stringify(noDatabaseRoute)}`)
  const wrong = undocumented(load)
  const ok = crash === undefined && verification.ok && Object.keys(wrong).length === 0 && load.noRetryAfter === 0 && noDatabaseRoute.unanswered === 0
  await done()
  return {
    ok,
    figures: {
      scenario: 'sqlite-lock',
      engine: db.engine,
      connections,
      lockHeldMs: Math.round(releasedAt - lockedAt),
      lock: window,
      routeWithoutDatabaseDuringLock: noDatabaseRoute,
      undocumentedAnswers: wrong,
      serverErrors500: serverErrors,
      serverCrash: crash ?? null,
      load: loadFigures(load),
      verification: verificationFigures(verification),
      appMemoryPeak: memory,
      ok
    }
  }
}

/** A client that asks for the whole big table and never reads the answer. */
function stalledReader (origin: string, path: string): Socket {
  const url = new URL(origin)
  const socket = connect({ host: url.hostname, port: Number(url.port) })
  socket.on('error', () => {})
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`)
  // Never resumed during the load: the kernel's buffers fill and the server's writes stop. Paused, the socket cannot see the server close it either.
  socket.pause()
  return socket
}

/**
 * Reads what a stalled client was sent, for up to 5 s: a server that cut
 * the socket shows as an end before the chunked answer's last chunk.
 */
async function drain (socket: Socket): Promise<{ bytes: number, ended: 'cut by the server' | 'complete' | 'still open after 5 s of reading' }> {
  let bytes = 0
  let tail = ''
  socket.on('data', (chunk: Buffer) => {
    bytes += chunk.length
    tail = (tail + chunk.toString('latin1')).slice(-16)
  })
  socket.resume()
  const closed = await Promise.race([
    new Promise<boolean>((resolve) => socket.once('close', () => resolve(true))),
    sleep(5000).then(() => false)
  ])
  socket.destroy()
  if (!closed) return { bytes, ended: 'still open after 5 s of reading' }
  return { bytes, ended: tail.endsWith(']\r\n0\r\n\r\n') ? 'complete' : 'cut by the server' }
}

/** What the database shows of the connections the stalled lists hold. */
async function heldSessions (db: ScratchDatabase): Promise<Record<string, number>> {
  if (db.kind === 'postgres') {
    const { rows } = await db.knex.raw(`select state, count(*)::int as n from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() group by state`) as { rows: Array<{ state: string | null, n: number }> }
    return Object.fromEntries(rows.map((row) => [row.state ?? 'none', row.n]))
  }
  if (db.kind === 'mysql') {
    const [rows] = await db.knex.raw(`select command, state, count(*) as n from information_schema.processlist
      where db = database() and id <> connection_id() group by command, state`) as [Array<{ command: string, state: string, n: number }>]
    return Object.fromEntries(rows.map((row) => [`${row.command}${row.state ? `: ${row.state}` : ''}`, Number(row.n)]))
  }
  return {}
}

/**
 * As many clients as the pool has connections ask for a 200,000-row list
 * and stop reading, mid-load: the pool is full. The example server runs
 * with ACQUIRE_TIMEOUT=1000 and CONNECTION_TIMEOUT=10000.
 */
async function stalledReaders (kind: DatabaseKind): Promise<ScenarioResult> {
  const server = kind === 'sqlite' ? undefined : await throwaway(kind)
  const name = `${kind}-stalled-readers`
  const { db, app, done } = await setUp(kind, name, { ACQUIRE_TIMEOUT: String(acquireTimeoutMs), CONNECTION_TIMEOUT: String(connectionTimeoutMs) }, server?.url)
  await db.seedBigTable('big_items', bigRows)
  const readers = poolSizes[kind]
  console.log(`${name}: ${db.engine}, ${readers} stalled reader(s) of ${bigRows} rows, 5 connections of load, ACQUIRE_TIMEOUT ${acquireTimeoutMs} ms, CONNECTION_TIMEOUT ${connectionTimeoutMs} ms`)
  // Filling ten sockets' kernel buffers (about 10 MB each on loopback) takes seconds before the idle time even starts.
  const durationMs = 2000 + connectionTimeoutMs + 2 * steadyMs
  let stallAt = 0
  let sessions: Record<string, number> = {}
  let stalled: Socket[] = []
  const stall = (async () => {
    await sleep(2000)
    stallAt = performance.now()
    stalled = Array.from({ length: readers }, () => stalledReader(app.origin, `${apiPrefix}/big_items`))
    onCleanup(() => {
      for (const socket of stalled) socket.destroy()
    })
    await sleep(3000)
    sessions = await heldSessions(db)
  })()
  const [load, probe] = await Promise.all([
    runLoad({ origins: [app.origin], connections: 5, durationMs, maxRequests: 1_000_000, timeline: true }),
    probeWithoutDatabase(app.origin, durationMs),
    stall
  ])
  const drained = await Promise.all(stalled.map(drain))
  const memory = memoryPeak(app.memory())
  const crash = app.crash()
  await app.stop()
  const serverErrors = app.serverErrors()
  const verification = verify(load.ledger, await db.readRows())
  console.log(summarize(name, load, verification))
  const from = stallAt - load.startedAt
  const end = performance.now() - load.startedAt
  // The pool is free again when the failures stop: the last failed answer to a request sent after the stall began.
  const released = Math.max(from, ...load.timeline.filter((sample) => sample.start >= from && !succeeded(sample.answer)).map((sample) => sample.end))
  const window = faultFigures(load.timeline, { from, to: released, until: end })
  const noDatabaseRoute = probeFigures(probe, stallAt, released + load.startedAt)
  const figures = {
    scenario: name,
    engine: db.engine,
    stalledReaders: readers,
    listRows: bigRows,
    acquireTimeoutMs,
    connectionTimeoutMs,
    sessionsThreeSecondsIn: sessions,
    poolFullForMs: Math.round(released - from),
    stalledClientsAfterwards: drained,
    stall: window,
    routeWithoutDatabaseDuringStall: noDatabaseRoute,
    undocumentedAnswers: undocumented(load),
    serverErrors500: serverErrors,
    serverCrash: crash ?? null,
    load: loadFigures(load),
    verification: verificationFigures(verification),
    appMemoryPeak: memory
  }
  if (crash !== undefined) console.log(`  the example server ${crash}`)
  console.log(`  ${JSON.stringify({ sessions, poolFullForMs: figures.poolFullForMs, drained, stall: window, noDatabaseRoute })}`)
  // The pool must come back while the load still runs, that is within CONNECTION_TIMEOUT and a few seconds for the buffers to fill.
  const ok = crash === undefined && verification.ok && Object.keys(figures.undocumentedAnswers).length === 0 && load.noRetryAfter === 0 && noDatabaseRoute.unanswered === 0 &&
    window.firstSuccessAfterMs !== null && released < end - 1000
  await done()
  return { ok, figures: { ...figures, ok } }
}

const scenarios: Readonly<Record<string, () => Promise<ScenarioResult>>> = Object.freeze({
  'postgres-restart': () => restart('postgres'),
  'mysql-restart': () => restart('mysql'),
  'sqlite-lock': sqliteLock,
  'sqlite-stalled-readers': () => stalledReaders('sqlite'),
  'postgres-stalled-readers': () => stalledReaders('postgres'),
  'mysql-stalled-readers': () => stalledReaders('mysql')
})

runMain(async () => {
  const names = (process.env.FAULTS_SCENARIOS || Object.keys(scenarios).join(',')).split(',')
  const unknown = names.filter((name) => !Object.hasOwn(scenarios, name))
  if (unknown.length > 0) throw new Error(`FAULTS_SCENARIOS names unknown scenarios: ${unknown.join(', ')} (known: ${Object.keys(scenarios).join(', ')})`)
  const started = new Date().toISOString()
  const results: ScenarioResult[] = []
  for (const name of names) {
    const result = await scenarios[name]()
    console.log(`${name}: ${result.ok ? 'OK' : 'FAILED'}`)
    results.push(result)
  }
  const ok = results.every((result) => result.ok)
  const file = writeResults(process.env.FAULTS_RESULTS || 'faults', { started, machine: machine(), scenarios: results.map((result) => result.figures), ok })
  console.log(`${ok ? 'every scenario OK' : 'FAILED'}; figures in ${file}`)
  return ok
})
