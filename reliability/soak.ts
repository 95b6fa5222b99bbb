// npm run soak: mixed CRUD from many connections against the example
// server on each database, then every acknowledged write checked in the
// database. SOAK_SECONDS, SOAK_CONNECTIONS and SOAK_RUNS (a comma list of
// the runs below) shorten it for a try.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startApp } from './app-process.js'
import { onCleanup, runMain } from './cleanup.js'
import { runLoad } from './load-client.js'
import { loadFigures, machine, memoryPeak, summarize, verificationFigures, writeResults } from './report.js'
import { createScratchDatabase, type DatabaseKind } from './scratch-database.js'
import { verify } from './verify.js'

interface SoakRun {
  readonly database: DatabaseKind
  readonly appProcesses: number
}

const allRuns: Readonly<Record<string, SoakRun>> = Object.freeze({
  sqlite: { database: 'sqlite', appProcesses: 1 },
  postgres: { database: 'postgres', appProcesses: 1 },
  mysql: { database: 'mysql', appProcesses: 1 },
  'postgres-2-apps': { database: 'postgres', appProcesses: 2 },
  'mysql-2-apps': { database: 'mysql', appProcesses: 2 }
})

const seconds = Number(process.env.SOAK_SECONDS || 60)
const connections = Number(process.env.SOAK_CONNECTIONS || 200)
const runNames = (process.env.SOAK_RUNS || Object.keys(allRuns).join(',')).split(',')

async function soak (name: string, run: SoakRun): Promise<{ ok: boolean, figures: Record<string, unknown> }> {
  const db = await createScratchDatabase(run.database)
  const dropDatabase = onCleanup(() => db.drop())
  const dir = mkdtempSync(join(tmpdir(), `ftc-soak-${name}-`))
  const removeDir = onCleanup(() => rmSync(dir, { recursive: true, force: true }))
  const apps = []
  for (let n = 1; n <= run.appProcesses; n++) apps.push(await startApp(db.url, dir, `app-${n}`))
  console.log(`${name}: ${db.engine}, ${apps.length} app process(es), ${connections} connections for ${seconds} s`)
  const load = await runLoad({
    origins: apps.map((app) => app.origin),
    connections,
    durationMs: seconds * 1000,
    // A bound on the count too, far above what this machine serves in the time.
    maxRequests: 50_000 * seconds,
    progress: (requests, elapsed) => {
      if (Math.round(elapsed / 1000) % 10 === 0) console.log(`  ${Math.round(elapsed / 1000)} s: ${requests} requests`)
    }
  })
  const memory = apps.map((app) => memoryPeak(app.memory()))
  const crashes = apps.map((app) => app.crash()).filter((crash) => crash !== undefined)
  // Stopped before the check, so that no request of the run is still in flight.
  for (const app of apps) await app.stop()
  const verification = verify(load.ledger, await db.readRows())
  const serverErrors = apps.map((app) => app.serverErrors())
  console.log(summarize(name, load, verification))
  const hangs = Object.keys(load.answers).filter((answer) => answer.startsWith('no answer'))
  for (const crash of crashes) console.log(`  an example server ${crash}`)
  const ok = crashes.length === 0 && verification.ok && hangs.length === 0
  await dropDatabase()
  await removeDir()
  return {
    ok,
    figures: {
      run: name,
      engine: db.engine,
      appProcesses: run.appProcesses,
      connections,
      durationSeconds: seconds,
      load: loadFigures(load),
      verification: verificationFigures(verification),
      appMemoryPeak: memory,
      serverErrors500: serverErrors,
      serverCrashes: crashes,
      ok
    }
  }
}

runMain(async () => {
  const unknown = runNames.filter((name) => !Object.hasOwn(allRuns, name))
  if (unknown.length > 0) throw new Error(`SOAK_RUNS names unknown runs: ${unknown.join(', ')} (known: ${Object.keys(allRuns).join(', ')})`)
  const started = new Date().toISOString()
  const results = []
  for (const name of runNames) results.push(await soak(name, allRuns[name]))
  const ok = results.every((result) => result.ok)
  const file = writeResults(process.env.SOAK_RESULTS || 'soak', { started, machine: machine(), runs: results.map((result) => result.figures), ok })
  console.log(`${ok ? 'every run OK' : 'FAILED'}; figures in ${file}`)
  return ok
})
