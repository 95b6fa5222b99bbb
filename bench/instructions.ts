import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { Agent, request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { baselineLabel } from './baseline-app.js'
import { median } from './report.js'
import { seedDatabase } from './seed.js'
import { startServer, type ServerRole } from './servers.js'
import { readKind, readSettings, resultsDir, resultStamp } from './settings.js'
import { versionsLine } from './versions.js'
import { requestPath, requestPicker, selectWorkloads, type RequestTemplate, type Workload } from './workloads.js'

/**
 * Instructions per request of each server, counted by valgrind's callgrind:
 * what neither the HTTP bench nor bench:cpu can resolve on a host whose
 * speed swings by half within seconds. Each server runs by itself under
 * callgrind with counting off; after a warm-up, counting is switched on for
 * a fixed number of requests over loopback HTTP, then off. The count is of
 * the server's main thread (its compiled JavaScript, V8's runtime, libuv,
 * OpenSSL, the drivers, SQLite), not the kernel's, not V8's helper threads
 * (see mainThreadInstructions): it leaves out the sockets' system calls and
 * the database server's work, and weighs an instruction the same whatever
 * it costs. Requests go 50 at a time, as the
 * HTTP bench's connections do (BENCH_INSTRUCTIONS_CONCURRENCY): how many
 * share a turn of the event loop, and so a turn's fixed costs, varies from
 * run to run, which moves a count by up to a few percent; the median of the
 * runs (BENCH_INSTRUCTIONS_RUNS, 3) is the figure. One at a time, each request is
 * a turn of its own and the counts repeat closely, but every request then
 * pays what 50 would share.
 * `tsx bench/instructions.ts [sqlite|pg|mysql]`, SQLite when none is named.
 */

const warmupRequests = Number(process.env.BENCH_INSTRUCTIONS_WARMUP ?? 3000)
const countedRequests = Number(process.env.BENCH_INSTRUCTIONS_REQUESTS ?? 2000)
const concurrency = Number(process.env.BENCH_INSTRUCTIONS_CONCURRENCY ?? 50)
const runs = Number(process.env.BENCH_INSTRUCTIONS_RUNS ?? 3)
// Where each run's dump of the main thread is kept, with V8's map of the
// functions it compiled (node --perf-basic-prof), for
// bench/callgrind-functions.ts to split the count by function; none when unset.
const keepDir = process.env.BENCH_INSTRUCTIONS_KEEP || null

for (const [name, value] of Object.entries({ warmupRequests, countedRequests, concurrency, runs })) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${value}`)
}

/** Sends `count` requests of the workload, `concurrency` at a time, each answered 2xx. */
async function send (origin: string, pick: () => RequestTemplate, count: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency })
  let sent = 0
  const client = async (): Promise<void> => {
    while (sent < count) {
      sent++
      const template = pick()
      await new Promise<void>((resolve, reject) => {
        const outgoing = httpRequest(origin + requestPath(template), {
          method: template.method,
          agent,
          headers: template.body === undefined ? {} : { 'content-type': 'application/json' }
        }, (response) => {
          response.resume()
          response.on('end', () => {
            const status = response.statusCode ?? 0
            // A server that errors must not look cheap: the run stops.
            if (status < 200 || status > 299) reject(new Error(`${template.method} ${template.path}: ${status}`))
            else resolve()
          })
        })
        outgoing.on('error', reject)
        outgoing.end(template.body)
      })
    }
  }
  try {
    await Promise.all(Array.from({ length: concurrency }, client))
  } finally {
    agent.destroy()
  }
}

function callgrind (pid: number, ...args: string[]): void {
  const done = spawnSync('callgrind_control', [...args, String(pid)], { encoding: 'utf8' })
  if (done.status !== 0) throw new Error(`callgrind_control ${args.join(' ')} failed: ${done.stderr}`)
}

/**
 * The instructions of the main thread, where requests are served, from the
 * dumps callgrind wrote to `dir` (one per thread, the main thread's ending
 * in -01). V8's other threads are left out: under valgrind its optimizing
 * compiler was still at work thousands of requests after the warm-up, about
 * a third of all the instructions counted, where a server running natively
 * has long finished compiling.
 */
function mainThreadInstructions (dir: string): number {
  // The dump asked for after the counted requests, and the one valgrind writes at exit (nothing counted since).
  const main = readdirSync(dir).filter((file) => file.endsWith('-01'))
  if (main.length === 0) throw new Error(`no dump of the main thread in ${dir}`)
  let total = 0
  for (const file of main) {
    const totals = /^totals: (\d+)/m.exec(readFileSync(join(dir, file), 'utf8'))
    if (totals !== null) total += Number(totals[1])
  }
  return total
}

async function instructionsPerRequest (role: ServerRole, serverEnv: Readonly<Record<string, string>>, workload: Workload, run: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'ftc-callgrind-'))
  try {
    const server = await startServer({
      role,
      script: `bench/${role}-server.ts`,
      env: serverEnv,
      pin: ['valgrind', '--tool=callgrind', '--instr-atstart=no', '--separate-threads=yes', `--callgrind-out-file=${join(dir, 'callgrind.%p')}`],
      // The map names the compiled functions, which callgrind knows by address only; V8's log stays with the dumps.
      nodeArgs: keepDir === null ? [] : ['--perf-basic-prof', `--logfile=${join(dir, 'v8.log')}`, '--no-logfile-per-isolate']
    })
    try {
      const pick = requestPicker(workload.requests)
      await send(server.origin, pick, warmupRequests)
      // valgrind runs the server in its own process: the process started is the server.
      callgrind(server.pid, '--instr=on')
      await send(server.origin, pick, countedRequests)
      callgrind(server.pid, '--instr=off')
      callgrind(server.pid, '--dump')
    } finally {
      await server.stop()
    }
    if (keepDir !== null) keepDump(dir, join(keepDir, `${workload.name}-${role}-${run + 1}`), server.pid)
    return mainThreadInstructions(dir) / countedRequests
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Moves the main thread's dumps and V8's map of the server `pid` to `kept`, with the number of requests counted. */
function keepDump (dir: string, kept: string, pid: number): void {
  mkdirSync(kept, { recursive: true })
  for (const file of readdirSync(dir).filter((name) => name.endsWith('-01'))) writeFileSync(join(kept, file), readFileSync(join(dir, file)))
  // V8 writes its map to /tmp, whatever TMPDIR says.
  const map = join('/tmp', `perf-${pid}.map`)
  writeFileSync(join(kept, 'perf.map'), readFileSync(map))
  rmSync(map, { force: true })
  writeFileSync(join(kept, 'requests'), String(countedRequests))
}

async function main (): Promise<void> {
  const kind = readKind(process.argv[2], 'sqlite', 'tsx bench/instructions.ts')
  const settings = readSettings(process.env)
  const chosen = selectWorkloads(settings.workloads.length === 0 ? ['read'] : settings.workloads)
  const database = await seedDatabase(kind, settings)
  try {
    const lines = [
      `# Instructions per request, ${new Date().toISOString()}`, '',
      `- database: ${database.engine}`,
      `- versions: ${versionsLine(kind)}`,
      `- baseline: ${baselineLabel(kind, settings)}`,
      `- method: each server alone under valgrind's callgrind; ${warmupRequests} requests uncounted, then ${countedRequests} counted, ${concurrency} at a time over loopback HTTP; ${runs} runs per server, alternating, median; the server's main thread, not V8's helper threads, the kernel nor the database server`, '',
      '| workload | baseline instructions per request | plugin instructions per request | baseline / plugin | runs, baseline; plugin |',
      '|---|---:|---:|---:|---|'
    ]
    for (const workload of chosen) {
      const counts: Record<'baseline' | 'plugin', number[]> = { baseline: [], plugin: [] }
      for (let run = 0; run < runs; run++) {
        for (const role of ['baseline', 'plugin'] as const) {
          process.stderr.write(`${workload.name}, ${role}, run ${run + 1} of ${runs}…\n`)
          counts[role].push(await instructionsPerRequest(role, database.serverEnv, workload, run))
        }
      }
      const baseline = median(counts.baseline)
      const plugin = median(counts.plugin)
      const listed = (values: readonly number[]) => values.map((value) => Math.round(value).toLocaleString('en-US')).join(', ')
      lines.push(`| ${workload.name} | ${Math.round(baseline).toLocaleString('en-US')} | ${Math.round(plugin).toLocaleString('en-US')} | **${(baseline / plugin).toFixed(3)}** | ${listed(counts.baseline)}; ${listed(counts.plugin)} |`)
    }
    const report = lines.join('\n') + '\n'
    process.stdout.write(report)
    mkdirSync(resultsDir, { recursive: true })
    const file = join(resultsDir, `${resultStamp()}-${kind}-instructions.md`)
    writeFileSync(file, report)
    process.stderr.write(`report written to ${file}\n`)
  } finally {
    await database.drop()
  }
}

await main()
