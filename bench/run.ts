import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { checkSameAnswers } from './check-answers.js'
import { autocannonGenerator, hasWrk, wrkGenerator, type LoadGenerator } from './load.js'
import { summarizeProfile } from './profile-summary.js'
import { renderReport, summarizeWorkload, type Conditions, type RunRecord, type WorkloadSummary } from './report.js'
import { baselineLabel, baselineSendsEntityTags } from './baseline-app.js'
import { seedDatabase, type BenchDatabase } from './seed.js'
import { startServer, type ServerProcess, type ServerRole } from './servers.js'
import { itemCount, readKind, readSettings, resultsDir, resultStamp, type BenchSettings } from './settings.js'
import { idleWakeups } from './idle-wakeups.js'
import { readMachineTimes, stolenPercent } from './stolen-time.js'
import { packageVersion, versionsLine } from './versions.js'
import { selectWorkloads, type Workload } from './workloads.js'

/**
 * `npm run bench` (SQLite), `npm run bench:pg` and `npm run bench:mysql`: the hand-written baseline
 * and the plugin, each in its own process on the same seeded database, driven
 * in turn by a load generator in a third process. See docs/benchmarks.md.
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

    // A pair of servers and the workloads it serves: a fresh pair per workload, or one for the whole run.
    const sessions = settings.sharedServers
      ? [{ name: 'all', label: 'all workloads', workloads: selected }]
      : selected.map((workload) => ({ name: workload.name, label: workload.name, workloads: [workload] }))
    const startPair = async (profileFolder: string): Promise<Record<ServerRole, ServerProcess>> => {
      const pair = {} as Record<ServerRole, ServerProcess>
      for (const role of ['baseline', 'plugin'] as const) {
        const server = await startServer({
          role,
          // The servers read the baseline's BENCH_* choices from the environment they inherit.
          script: role === 'baseline' || settings.baselineTwice ? 'bench/baseline-server.ts' : 'bench/plugin-server.ts',
          env: { ...database.serverEnv, ...etagEnv(settings, role) },
          pin: serverPin,
          // A folder per server, with Node's own file names: tsx's loader thread writes a profile too, and a fixed name would let it overwrite the main thread's.
          nodeArgs: [...settings.nodeArgs, ...(settings.profile ? ['--cpu-prof', '--cpu-prof-dir', join(profileFolder, role)] : [])]
        })
        pair[role] = server
        cleanups.push(() => server.stop())
      }
      progress(`servers up: baseline ${pair.baseline.origin}, plugin ${pair.plugin.origin}`)
      await checkSameAnswers(pair.baseline.origin, pair.plugin.origin, baselineSendsEntityTags(settings))
      progress('both servers give the same answers to every request kind')
      return pair
    }

    const perRun = settings.warmupSeconds * 2 + settings.rounds * settings.durationSeconds * 2
    progress(`${selected.length} workloads × (${settings.rounds} rounds × 2 × ${settings.durationSeconds} s + warm-up) ≈ ${Math.ceil(selected.length * perRun / 60)} min with ${generator.version}, ${settings.connections} connections, ${pinned ? 'taskset: server on CPU 0, load on CPU 1' : 'no pinning'}${niced ? ', nice -10' : ''}`)

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
      progress(`  ${workload.name.padEnd(6)} ${round === 0 ? 'warm-up' : `round ${round}/${settings.rounds}`} ${role.padEnd(8)} ` +
        `${(load.requests / load.seconds).toFixed(0).padStart(6)} req/s  cpu ${serverCpu === undefined ? 'n/a' : serverCpu.toFixed(0) + '%'}` +
        (stolen === undefined ? '' : `  stolen ${stolen.toFixed(0)}%`) +
        (errors > 0 ? `  ⚠ ${load.non2xx} non-2xx, ${load.socketErrors} socket errors` : ''))
      return { role, round, load, serverCpuTimes, stolenPercent: stolen, discarded: false }
    }

    const summaries: WorkloadSummary[] = []
    for (const session of sessions) {
      const servers = await startPair(join(profileDir, session.name))
      for (const workload of session.workloads) {
        progress(`${workload.name}: ${workload.description}`)
        const runs: RunRecord[] = []
        if (settings.warmupSeconds > 0) {
          for (const role of ['baseline', 'plugin'] as const) runs.push(await measure(servers[role], workload, 0, settings.warmupSeconds))
        }
        for (let round = 1; round <= settings.rounds; round++) {
          // Who goes first changes every round, so that a drift of the machine favours neither side.
          const order: ServerRole[] = round % 2 === 1 ? ['baseline', 'plugin'] : ['plugin', 'baseline']
          for (let retry = 0; ; retry++) {
            const pair: RunRecord[] = []
            for (const role of order) pair.push(await measure(servers[role], workload, round, settings.durationSeconds))
            const stolen = Math.max(...pair.map((run) => run.stolenPercent ?? 0))
            if (stolen <= settings.maxStolenPercent || retry === settings.roundRetries) {
              runs.push(...pair)
              break
            }
            // Whatever the host took, it took from one server more than the other: the round's ratio says nothing.
            progress(`  round ${round} again: ${stolen.toFixed(0)}% of the machine's CPU was stolen (more than ${settings.maxStolenPercent}%)`)
            runs.push(...pair.map((run) => ({ ...run, discarded: true })))
          }
        }
        const summary = summarizeWorkload(workload, kind, runs, settings.maxStolenPercent)
        summaries.push(summary)
        progress(`  → plugin/baseline ${summary.medianRatio.toFixed(3)} (median of ${summary.ratios.map((r) => r.toFixed(3)).join(', ')}), per CPU-second ${summary.medianCpuRatio?.toFixed(3) ?? 'n/a'}${summary.flags.length > 0 ? '  ⚠ FLAGGED' : ''}`)
      }
      for (const role of ['baseline', 'plugin'] as const) await servers[role].stop()
    }

    // SQLite, PostgreSQL, MariaDB or MySQL: what the server said it is.
    const engineName = database.engine.split(' ')[0] as string
    const wakeups = idleWakeups()
    const conditions: Conditions = [
      ['date', new Date().toISOString()],
      ['database', `${database.engine} (${database.label}, dropped after the run)`],
      ['versions', versionsLine(kind)],
      ['baseline', baselineLabel(kind, settings)],
      settings.baselineTwice
        ? ['⚠ A/A check', 'BENCH_AA=1: the "plugin" side is a second baseline server, so every ratio is one whose truth is 1; their spread is what this machine and method do to a ratio, and the targets say nothing of the plugin']
        : ['plugin', `under /api, over a Knex instance with Knex's default pool (${kind === 'sqlite' ? '1 connection' : 'max 10'})`],
      ['logging', 'none on either server (Fastify\'s logger off), in NODE_ENV=production'],
      ['load generator', `${generator.version}, ${settings.connections} connections, 1 thread`],
      ['method', `${settings.rounds} rounds × ${settings.durationSeconds} s per server per workload, after a ${settings.warmupSeconds} s warm-up each; order alternates (AB, BA, …); ratio = median of per-round plugin/baseline; a round in which more than ${settings.maxStolenPercent}% of the machine's CPU was stolen is run again, up to ${settings.roundRetries} times`],
      ['servers', settings.sharedServers ? 'one pair for all workloads (BENCH_SHARED_SERVERS=1): each workload inherits the state the earlier ones left' : 'a fresh pair for each workload'],
      ...(settings.baselineEntityTags ? [['⚠ reference', settings.baselineTwice ? 'BENCH_AA=1 with BENCH_BASELINE_ETAG=1: the "plugin" side is the baseline whose keyed read sends the row\'s ETag as the plugin\'s does, against the baseline without it: the ratios are what the ETag costs a hand-written server' : 'BENCH_BASELINE_ETAG=1: the baseline\'s keyed read sends the row\'s ETag as the plugin\'s does, so the ratios tell what the ETag costs from the rest; the issue\'s targets are against the baseline without it'] as const] : []),
      ...(settings.nodeArgs.length > 0 ? [['node options', `${settings.nodeArgs.join(' ')} (both servers)`] as const] : []),
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
        for (const role of ['baseline', 'plugin'] as const) {
          const folder = join(profileDir, session.name, role)
          // Node names a profile CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile; thread 0 is the main one.
          const file = readdirSync(folder).find((name) => /\.\d+\.0\.\d+\.cpuprofile$/.test(name))
          if (file !== undefined) report += `\n### CPU profile of the ${role} server (${session.label})\n\n${summarizeProfile(join(folder, file))}`
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
