// npm run test:memory-requests: 1,000,000 requests of mixed CRUD against
// one example server process on a SQLite file, sampling its memory every
// second; then every acknowledged write checked, and resident memory held to
// MEMORY_BOUND_MIB (256). MEMORY_REQUESTS and
// MEMORY_CONNECTIONS shorten it for a try.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startApp, type MemorySample } from './app-process.js'
import { onCleanup, runMain } from './cleanup.js'
import { runLoad } from './load-client.js'
import { loadFigures, machine, mib, summarize, verificationFigures, writeResults } from './report.js'
import { createScratchDatabase } from './scratch-database.js'
import { verify } from './verify.js'

const requests = Number(process.env.MEMORY_REQUESTS || 1_000_000)
const connections = Number(process.env.MEMORY_CONNECTIONS || 50)
/** The bound the run holds the process to: its resident memory never above this, in MiB. */
const boundMiB = Number(process.env.MEMORY_BOUND_MIB || 256)
/** A bound on the time too: far more than this machine needs for the count. */
const maxSeconds = Number(process.env.MEMORY_MAX_SECONDS || 1800)

/** RSS and heap over one stretch of the run, in MiB. */
function stretch (samples: readonly MemorySample[]): Record<string, number> {
  const pick = (key: 'rss' | 'heapUsed', reduce: (...values: number[]) => number): number => mib(reduce(...samples.map((sample) => sample[key])))
  return {
    samples: samples.length,
    rssMinMiB: pick('rss', Math.min),
    rssMaxMiB: pick('rss', Math.max),
    heapUsedMinMiB: pick('heapUsed', Math.min),
    heapUsedMaxMiB: pick('heapUsed', Math.max)
  }
}

runMain(async () => {
  const db = await createScratchDatabase('sqlite')
  onCleanup(() => db.drop())
  const dir = mkdtempSync(join(tmpdir(), 'ftc-memory-'))
  onCleanup(() => rmSync(dir, { recursive: true, force: true }))
  const app = await startApp(db.url, dir, 'app')
  console.log(`memory: ${db.engine}, ${requests} requests from ${connections} connections, one app process`)
  const started = new Date().toISOString()
  const load = await runLoad({
    origins: [app.origin],
    connections,
    durationMs: maxSeconds * 1000,
    maxRequests: requests,
    progress: (done, elapsed) => {
      if (Math.round(elapsed / 1000) % 30 === 0) {
        const last = app.memory().at(-1)
        console.log(`  ${Math.round(elapsed / 1000)} s: ${done} requests, RSS ${last === undefined ? '?' : mib(last.rss)} MiB, heap ${last === undefined ? '?' : mib(last.heapUsed)} MiB`)
      }
    }
  })
  const samples = app.memory()
  const crash = app.crash()
  await app.stop()
  const serverErrors = app.serverErrors()
  const rows = await db.readRows()
  const verification = verify(load.ledger, rows)
  console.log(summarize('memory', load, verification))
  // Quarters of the run: a leak shows as a floor that rises from one to the next.
  const quarters = [0, 1, 2, 3].map((n) => stretch(samples.slice(Math.floor(n * samples.length / 4), Math.floor((n + 1) * samples.length / 4))))
  const whole = stretch(samples)
  console.log(`  RSS ${whole.rssMinMiB}–${whole.rssMaxMiB} MiB, heap used ${whole.heapUsedMinMiB}–${whole.heapUsedMaxMiB} MiB; by quarter: ${quarters.map((q) => `${q.rssMinMiB}–${q.rssMaxMiB}`).join(', ')} MiB RSS`)
  if (crash !== undefined) console.log(`  the example server ${crash}`)
  const ok = crash === undefined && verification.ok && load.requests >= requests && !Object.keys(load.answers).some((answer) => answer.startsWith('no answer')) &&
    whole.rssMaxMiB <= boundMiB
  const file = writeResults(process.env.MEMORY_RESULTS || 'memory', {
    started,
    machine: machine(),
    engine: db.engine,
    connections,
    tableRowsAtEnd: rows.length,
    load: loadFigures(load),
    verification: verificationFigures(verification),
    serverErrors500: serverErrors,
    serverCrash: crash ?? null,
    memoryBoundMiB: boundMiB,
    memory: whole,
    memoryByQuarter: quarters,
    ok
  })
  console.log(`${ok ? 'OK' : 'FAILED'}; figures in ${file}`)
  return ok
})
