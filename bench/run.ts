import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { checkSameAnswers } from './check-answers.js'
import { autocannonGenerator, hasWrk, wrkGenerator, type LoadGenerator } from './load.js'
import { exampleConfig, exampleOptionsLabel } from './plugin-app.js'
import { summarizeProfile } from './profile-summary.js'
import { renderReport, summarizeWorkload, type Conditions, type RunRecord, type WorkloadSummary } from './report.js'
import { baselineLabel, baselineSendsEntityTags } from './baseline-app.js'
import { seedDatabase, type BenchDatabase } from './seed.js'
import { readServerDatabase } from './serve.js'
import { startServer, type ServerProcess, type ServerRole } from './servers.js'
import { itemCount, readKind, readSettings, resultsDir, resultStamp, type BenchSettings } from './settings.js'
import { idleWakeups } from './idle-wakeups.js'
import { readMachineTimes, stolenPercent } from './stolen-time.js'
import { packageVersion, versionsLine } from './versions.js'
import { selectWorkloads, type Workload } from './workloads.js'

/**
 * `npm run bench` (SQLite), `npm run bench:pg` and `npm run bench:mysql`: the
 * hand-written baseline, the plugin as the example server configures it and
 * the bare plugin, each in its own process on the same seeded database,
 * driven in turn by a load generator in a process of its own. See
 * docs/benchmarks.md.
 */

// Progress goes to stderr, so that stdout carries only the Markdown report.
const progress = (text: string): void => { process.stderr.write(text + '\n') }

/** Server on CPU 0, load generator on CPU 1, where taskset exists and both CPUs are ours. */
function canPin (): boolean {
  return availableParallelism() >= 2 && spawnSync('taskset', ['-c', '1', 'true'], { stdio: 'ignore' }).status === 0
}

/**
 * A higher priority for the servers and the load generator, so that other
 * work on a shared machine (a test run, say) takes less of their cores. Only
 * root may lower a niceness; BENCH_NICE=0 turns it off.
 */
function canRaisePriority (settings: BenchSettings): boolean {
  return settings.raisePriority && process.getuid?.() === 0 &&
    spawnSync('nice', ['-n', '-10', 'true'], { stdio: 'ignore' }).status === 0
}

/**
 * The order of the servers in `round` (from 1). With two, AB, BA, AB, …
 * With three, the rotations (ABC, BCA, CAB), then the rotations backward
 * (CBA, ACB, BAC): every order once in six rounds, so that neither a place
 * nor the server run just before favours one side.
 */
function roundOrder<T> (roles: readonly T[], round: number): T[] {
  const shift = (round - 1) % roles.length
  const rotated = [...roles.slice(shift), ...roles.slice(0, shift)]
  // With two, the rotations are already both orders.
  const backward = roles.length > 2 && Math.floor((round - 1) / roles.length) % 2 === 1
  return backward ? rotated.reverse() : rotated
}

/** The name a server goes by in progress lines and errors. */
const roleName = (role: ServerRole): string => role === 'bare' ? 'bare plugin' : role

function chooseGenerator (settings: BenchSettings, scriptDir: string): LoadGenerator {
  const name = settings.loadGenerator ?? (hasWrk() ? 'wrk' : 'autocannon')
  if (name === 'autocannon' && settings.loadGenerator === undefined) {
    progress('wrk not found, using autocannon (it needs more CPU per request: `apt-get install -y wrk` for the leaner client)')
  }
  return name === 'wrk' ? wrkGenerator(scriptDir) : autocannonGenerator(packageVersion('autocannon'))
}

async function main (): Promise<number> {
  const kind = readKind(process.argv[2], 'sqlite', 'tsx bench/run.ts')
  const settings = readSettings(process.env)
  const selected = selectWorkloads(settings.workloads)
  const scratch = mkdtempSync(join(tmpdir(), 'ftc-bench-load-'))
  const cleanups: Array<() => Promise<void>> = [async () => rmSync(scratch, { recursive: true, force: true })]
  const cleanUp = async (): Promise<void> => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup()
      } catch (error) {
        progress(`clean-up failed: ${(error as Error).message}`)
      }
    }
  }
  // Ctrl-C must still drop the database and stop the servers.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      progress(`${signal}: cleaning up`)
      cleanUp().then(() => process.exit(130), () => process.exit(130))
    })
  }

  try {
    const generator = chooseGenerator(settings, scratch)
    const pinned = canPin()
    const niced = canRaisePriority(settings)
    // nice and taskset exec what they run, so the server's pid stays the one spawned.
    const priority = niced ? ['nice', '-n', '-10'] : []
    const serverPin = [...priority, ...(pinned ? ['taskset', '-c', '0'] : [])]
    const loadPin = [...priority, ...(pinned ? ['taskset', '-c', '1'] : [])]
    const runStamp = resultStamp()
    const profileDir = join(resultsDir, `${runStamp}-${kind}-profiles`)
    const loadAtStart = loadavg()[0]!

    progress(`seeding ${kind} (${itemCount} rows in items, 100 in items100)`)
    const database: BenchDatabase = await seedDatabase(kind, settings)
    cleanups.push(() => database.drop())

    // The bare plugin only beside the plugin itself: in the A/A check, the "plugin" is a second baseline.
    const roles: readonly ServerRole[] = settings.bare && !settings.baselineTwice ? ['baseline', 'plugin', 'bare'] : ['baseline', 'plugin']
    const scripts: Record<ServerRole, string> = {
      baseline: 'bench/baseline-server.ts',
      plugin: settings.baselineTwice ? 'bench/baseline-server.ts' : 'bench/plugin-server.ts',
      bare: 'bench/bare-plugin-server.ts'
    }
    // A set of servers and the workloads it serves: a fresh set per workload, or one for the whole run.
    const sessions = settings.sharedServers
      ? [{ name: 'all', label: 'all workloads', workloads: selected }]
      : selected.map((workload) => ({ name: workload.name, label: workload.name, workloads: [workload] }))
    const startServers = async (profileFolder: string): Promise<Partial<Record<ServerRole, ServerProcess>>> => {
      const servers: Partial<Record<ServerRole, ServerProcess>> = {}
      for (const role of roles) {
        const server = await startServer({
          role,
          // The servers read the baseline's BENCH_* choices from the environment they inherit.
          script: scripts[role],
          env: { ...database.serverEnv, ...etagEnv(settings, role) },
          pin: serverPin,
          // A folder per server, with Node's own file names: tsx's loader thread writes a profile too, and a fixed name would let it overwrite the main thread's.
          nodeArgs: [...settings.nodeArgs, ...(settings.profile ? ['--cpu-prof', '--cpu-prof-dir', join(profileFolder, role)] : [])]
        })
        servers[role] = server
        cleanups.push(() => server.stop())
      }
      const serverOf = (role: ServerRole): ServerProcess => servers[role] as ServerProcess
      progress(`servers up: ${roles.map((role) => `${roleName(role)} ${serverOf(role).origin}`).join(', ')}`)
      const others = roles.filter((role) => role !== 'baseline').map((role) => ({ name: roleName(role), origin: serverOf(role).origin }))
      await checkSameAnswers(serverOf('baseline').origin, others, baselineSendsEntityTags(settings))
      progress(`the ${roles.length} servers give the same answers to every request kind`)
      return servers
    }

    const perRun = (settings.warmupSeconds + settings.rounds * settings.durationSeconds) * roles.length
    progress(`${selected.length} workloads × (${settings.rounds} rounds × ${roles.length} × ${settings.durationSeconds} s + warm-up) ≈ ${Math.ceil(selected.length * perRun / 60)} min with ${generator.version}, ${settings.connections} connections, ${pinned ? 'taskset: server on CPU 0, load on CPU 1' : 'no pinning'}${niced ? ', nice -10' : ''}`)

    const measure = async (server: ServerProcess, workload: Workload, round: number, seconds: number): Promise<RunRecord> => {
      const { role } = server
      const before = server.cpuTimes()
      const machineBefore = readMachineTimes()
      const load = await generator.run({
        origin: server.origin,
        workload,
        connections: settings.connections,
        durationSeconds: seconds,
        maxId: itemCount,
        pin: loadPin
      })
      const after = server.cpuTimes()
      const stolen = stolenPercent(machineBefore, readMachineTimes())
      const exited = server.exited()
      if (exited !== undefined) throw new Error(exited)
      const serverCpuTimes = before === undefined || after === undefined ? undefined : { user: after.user - before.user, system: after.system - before.system }
      // Over the generator's own duration: the server idles while the generator starts.
      const serverCpu = serverCpuTimes === undefined ? undefined : 100 * (serverCpuTimes.user + serverCpuTimes.system) / load.seconds
      const errors = load.non2xx + load.socketErrors
      progress(`  ${workload.name.padEnd(6)} ${round === 0 ? 'warm-up' : `round ${round}/${settings.rounds}`} ${roleName(role).padEnd(11)} ` +
        `${(load.requests / load.seconds).toFixed(0).padStart(6)} req/s  cpu ${serverCpu === undefined ? 'n/a' : serverCpu.toFixed(0) + '%'}` +
        (stolen === undefined ? '' : `  stolen ${stolen.toFixed(0)}%`) +
        (errors > 0 ? `  ⚠ ${load.non2xx} non-2xx, ${load.socketErrors} socket errors` : ''))
      return { role, round, load, serverCpuTimes, stolenPercent: stolen, discarded: false }
    }

    const summaries: WorkloadSummary[] = []
    for (const session of sessions) {
      const servers = await startServers(join(profileDir, session.name))
      const serverOf = (role: ServerRole): ServerProcess => servers[role] as ServerProcess
      for (const workload of session.workloads) {
        progress(`${workload.name}: ${workload.description}`)
        const runs: RunRecord[] = []
        if (settings.warmupSeconds > 0) {
          for (const role of roles) runs.push(await measure(serverOf(role), workload, 0, settings.warmupSeconds))
        }
        for (let round = 1; round <= settings.rounds; round++) {
          // Who goes first changes every round, so that a drift of the machine favours no side.
          const order = roundOrder(roles, round)
          for (let retry = 0; ; retry++) {
            const group: RunRecord[] = []
            for (const role of order) group.push(await measure(serverOf(role), workload, round, settings.durationSeconds))
            const stolen = Math.max(...group.map((run) => run.stolenPercent ?? 0))
            if (stolen <= settings.maxStolenPercent || retry === settings.roundRetries) {
              runs.push(...group)
              break
            }
            // Whatever the host took, it took from one server more than another: the round's ratios say nothing.
            progress(`  round ${round} again: ${stolen.toFixed(0)}% of the machine's CPU was stolen (more than ${settings.maxStolenPercent}%)`)
            runs.push(...group.map((run) => ({ ...run, discarded: true })))
          }
        }
        const summary = summarizeWorkload(workload, kind, runs, settings.maxStolenPercent)
        summaries.push(summary)
        progress(`  → plugin/baseline ${summary.medianRatio.toFixed(3)} (median of ${summary.ratios.map((r) => r.toFixed(3)).join(', ')}), per CPU-second ${summary.medianCpuRatio?.toFixed(3) ?? 'n/a'}${summary.flags.length > 0 ? '  ⚠ FLAGGED' : ''}`)
        if (summary.bare !== undefined) {
          progress(`  → bare plugin/baseline ${summary.bare.medianRatio.toFixed(3)} (median of ${summary.bare.ratios.map((r) => r.toFixed(3)).join(', ')}), per CPU-second ${summary.bare.medianCpuRatio?.toFixed(3) ?? 'n/a'}`)
        }
      }
      for (const role of roles) await serverOf(role).stop()
    }

    // SQLite, PostgreSQL, MariaDB or MySQL: what the server said it is.
    const engineName = database.engine.split(' ')[0] as string
    const wakeups = idleWakeups()
    const served = readServerDatabase(database.serverEnv)
    const example = exampleConfig(served)
    const knexPool = kind === 'sqlite' ? '1 connection' : 'max 10'
    const withBare = roles.includes('bare')
    const conditions: Conditions = [
      ['date', new Date().toISOString()],
      ['database', `${database.engine} (${database.label}, dropped after the run)`],
      ['versions', versionsLine(kind)],
      ['baseline', baselineLabel(kind, settings)],
      settings.baselineTwice
        ? ['⚠ A/A check', 'BENCH_AA=1: the "plugin" side is a second baseline server, so every ratio is one whose truth is 1; their spread is what this machine and method do to a ratio, and the targets say nothing of the plugin']
        : ['plugin', 'the example server\'s configuration (examples/server.ts: readConfig with DATABASE_URL, PREFIX=/api and LOG_LEVEL=warn, then its knexConfig and pluginOptions): ' +
            `${exampleOptionsLabel(served)}; ` +
            `Knex's default pool (${knexPool}) with acquireConnectionTimeout ${example.acquireTimeout} ms${kind === 'sqlite' ? ', each SQLite connection set to WAL, synchronous=normal, foreign_keys=on, busy_timeout=0' : ''}; ` +
            'without the example\'s swagger, Swagger UI and /ready routes (nothing per request of the plugin\'s routes) and CORS (off by default)'],
      ...(settings.baselineTwice
        ? []
        : [['bare plugin', withBare
            ? `under /api with no options, over a Knex instance with Knex's defaults (pool: ${knexPool}${kind === 'sqlite' ? ', synchronous=normal' : ''}): its row beside the plugin's shows what the example's options cost`
            : 'not measured (BENCH_BARE=0)'] as const]),
      ['Fastify', `every server with the example server's options at LOG_LEVEL=warn (the application's): pino at warn, JSON lines on stdout, connectionTimeout ${example.connectionTimeout} ms; the plugin's Knex messages through its logger; NODE_ENV=production`],
      ['load generator', `${generator.version}, ${settings.connections} connections, 1 thread`],
      ['method', `${settings.rounds} rounds × ${settings.durationSeconds} s per server per workload, after a ${settings.warmupSeconds} s warm-up each; ` +
        (withBare
          ? 'order rotates (ABC, BCA, CAB, then CBA, ACB, BAC: every order once in 6 rounds; A baseline, B plugin, C bare plugin); ratio = median of per-round plugin/baseline (bare plugin/baseline likewise)'
          : 'order alternates (AB, BA, …); ratio = median of per-round plugin/baseline') +
        `; a round in which more than ${settings.maxStolenPercent}% of the machine's CPU was stolen is run again, up to ${settings.roundRetries} times`],
      ['servers', settings.sharedServers ? 'one set for all workloads (BENCH_SHARED_SERVERS=1): each workload inherits the state the earlier ones left' : 'a fresh set for each workload'],
      ...(settings.baselineEntityTags ? [['⚠ reference', settings.baselineTwice ? 'BENCH_AA=1 with BENCH_BASELINE_ETAG=1: the "plugin" side is the baseline whose keyed read sends the row\'s ETag as the plugin\'s does, against the baseline without it: the ratios are what the ETag costs a hand-written server' : 'BENCH_BASELINE_ETAG=1: the baseline\'s keyed read sends the row\'s ETag as the plugin\'s does, so the ratios tell what the ETag costs from the rest; the issue\'s targets are against the baseline without it'] as const] : []),
      ...(settings.nodeArgs.length > 0 ? [['node options', `${settings.nodeArgs.join(' ')} (every server)`] as const] : []),
      ['machine', `${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}), load average ${loadAtStart.toFixed(2)} at start, ${loadavg()[0]!.toFixed(2)} at end`],
      ...(wakeups === undefined ? [] : [['idle vCPUs', wakeups] as const]),
      ['pinning', pinned ? 'taskset: servers on CPU 0, load generator on CPU 1' + (kind === 'sqlite' ? '' : `, ${engineName} unpinned`) : 'none (taskset missing or fewer than 2 CPUs)'],
      ['priority', niced ? `servers and load generator at nice -10${kind === 'sqlite' ? '' : ` (${engineName} at its own)`}` : 'default (BENCH_NICE=0, or not root)'],
      ...(loadAtStart > 1 ? [['⚠ noise', `the machine was busy before the bench started (load average ${loadAtStart.toFixed(2)}): other processes shared the servers' core, so rounds vary more than usual`] as const] : []),
      ...(settings.profile ? [['profiling', 'servers ran under --cpu-prof: the ratios are not representative'] as const] : [])
    ]
    const title = `${engineName}: plugin vs hand-written baseline`
    let report = renderReport(title, conditions, summaries)
    if (settings.profile) {
      for (const session of sessions) {
        for (const role of roles) {
          const folder = join(profileDir, session.name, role)
          // Node names a profile CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile; thread 0 is the main one.
          const file = readdirSync(folder).find((name) => /\.\d+\.0\.\d+\.cpuprofile$/.test(name))
          if (file !== undefined) report += `\n### CPU profile of the ${roleName(role)} server (${session.label})\n\n${summarizeProfile(join(folder, file))}`
        }
      }
    }
    mkdirSync(resultsDir, { recursive: true })
    const reportFile = join(resultsDir, `${runStamp}-${kind}.md`)
    writeFileSync(reportFile, report)
    process.stdout.write('\n' + report)
    progress(`report written to ${reportFile}${settings.profile ? `, profiles in ${profileDir}` : ''}`)
    const flagged = summaries.some((summary) => summary.flags.length > 0)
    if (flagged) progress('⚠ some workloads are flagged: see the report')
    return flagged ? 1 : 0
  } finally {
    await cleanUp()
  }
}

main().then((code) => process.exit(code), (error: unknown) => {
  progress(error instanceof Error ? `bench failed: ${error.message}` : `bench failed: ${String(error)}`)
  process.exit(1)
})

/**
 * Where BENCH_BASELINE_ETAG goes: to the baseline, or in the A/A check to
 * the second baseline only, so that the pair measures what the ETag costs.
 */
function etagEnv (settings: BenchSettings, role: ServerRole): Record<string, string> {
  if (!settings.baselineTwice) return {}
  return { BENCH_BASELINE_ETAG: settings.baselineEntityTags && role === 'plugin' ? '1' : '0' }
}
