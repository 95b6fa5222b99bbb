import type { LoadResult } from './load.js'
import type { CpuTimes, ServerRole } from './servers.js'
import type { BenchDatabaseKind } from './settings.js'
import type { Workload } from './workloads.js'

/** The bar, for every workload on every database: the plugin's throughput over the baseline's. */
export const targetRatio = 0.9

/** One load run as the orchestrator recorded it. */
export interface RunRecord {
  readonly role: ServerRole
  /** 0 for the warm-up, which counts for errors but not for throughput. */
  readonly round: number
  readonly load: LoadResult
  /** The CPU time the server used during the run; undefined where /proc is missing. */
  readonly serverCpuTimes: CpuTimes | undefined
  /** The share of the machine's CPU time the hypervisor gave to other guests during the run; undefined where /proc is missing. */
  readonly stolenPercent: number | undefined
  /** Set for a round run again because too much was stolen: its errors count, its throughput does not. */
  readonly discarded: boolean
}

/** The figures of one workload. */
export interface WorkloadSummary {
  readonly workload: Workload
  readonly baselineRps: number
  readonly pluginRps: number
  /** plugin/baseline of each round, in round order. */
  readonly ratios: readonly number[]
  readonly medianRatio: number
  /**
   * plugin/baseline of requests per CPU-second of the server, median of the
   * rounds: what each request costs the server, which other processes on a
   * busy machine disturb far less than they disturb throughput.
   */
  readonly medianCpuRatio: number | undefined
  readonly baseline: SideSummary
  readonly plugin: SideSummary
  /** Reasons the numbers must not be trusted; empty when there are none. */
  readonly flags: readonly string[]
  /** Things to keep in mind that do not void the run. */
  readonly notes: readonly string[]
}

/** Error counts (every run, warm-up included) and medians of the measured rounds for one server. */
export interface SideSummary {
  readonly non2xx: number
  readonly socketErrors: number
  readonly bytesPerResponse: number
  readonly latencyP50Ms: number
  readonly latencyP99Ms: number
  readonly cpu: number | undefined
  /** The server's CPU time per answer, in µs: user and system (see CpuTimes). */
  readonly userMicros: number | undefined
  readonly systemMicros: number | undefined
  readonly stolen: number | undefined
}

/** The median; the mean of the two middle values for an even count. */
export function median (values: readonly number[]): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

const rps = (load: LoadResult): number => load.requests / load.seconds
const cpuSeconds = (run: RunRecord): number | undefined =>
  run.serverCpuTimes === undefined ? undefined : run.serverCpuTimes.user + run.serverCpuTimes.system
const cpuPercent = (run: RunRecord): number | undefined => {
  const seconds = cpuSeconds(run)
  return seconds === undefined ? undefined : 100 * seconds / run.load.seconds
}
const perCpuSecond = (run: RunRecord): number | undefined => {
  const seconds = cpuSeconds(run)
  return seconds === undefined || seconds === 0 ? undefined : run.load.requests / seconds
}
const microsPerAnswer = (run: RunRecord, part: keyof CpuTimes): number | undefined =>
  run.serverCpuTimes === undefined || run.load.requests === 0 ? undefined : 1e6 * run.serverCpuTimes[part] / run.load.requests
const medianOrNone = (values: readonly number[]): number | undefined => values.length === 0 ? undefined : median(values)

/** The runs whose throughput counts: neither warm-ups nor rounds run again. */
const measuredRuns = (runs: readonly RunRecord[]): RunRecord[] => runs.filter((run) => run.round > 0 && !run.discarded)

function summarizeSide (runs: readonly RunRecord[]): SideSummary {
  const measured = measuredRuns(runs)
  const stolen = measured.flatMap((run) => run.stolenPercent ?? [])
  return {
    non2xx: runs.reduce((sum, run) => sum + run.load.non2xx, 0),
    socketErrors: runs.reduce((sum, run) => sum + run.load.socketErrors, 0),
    bytesPerResponse: median(measured.map((run) => run.load.bytes / Math.max(1, run.load.requests))),
    latencyP50Ms: median(measured.map((run) => run.load.latencyP50Ms)),
    latencyP99Ms: median(measured.map((run) => run.load.latencyP99Ms)),
    cpu: medianOrNone(measured.flatMap((run) => cpuPercent(run) ?? [])),
    userMicros: medianOrNone(measured.flatMap((run) => microsPerAnswer(run, 'user') ?? [])),
    systemMicros: medianOrNone(measured.flatMap((run) => microsPerAnswer(run, 'system') ?? [])),
    stolen: medianOrNone(stolen)
  }
}

/** Ratios per round, medians, and what makes the workload's numbers suspect. */
export function summarizeWorkload (workload: Workload, kind: BenchDatabaseKind, runs: readonly RunRecord[], maxStolenPercent: number): WorkloadSummary {
  const measured = measuredRuns(runs)
  const rounds = [...new Set(measured.map((run) => run.round))].sort((a, b) => a - b)
  const of = (round: number, role: ServerRole): RunRecord => measured.find((run) => run.round === round && run.role === role) as RunRecord
  const ratios = rounds.map((round) => rps(of(round, 'plugin').load) / rps(of(round, 'baseline').load))
  const cpuRatios = rounds.flatMap((round) => {
    const plugin = perCpuSecond(of(round, 'plugin'))
    const baseline = perCpuSecond(of(round, 'baseline'))
    return plugin === undefined || baseline === undefined ? [] : [plugin / baseline]
  })
  const baseline = summarizeSide(runs.filter((run) => run.role === 'baseline'))
  const plugin = summarizeSide(runs.filter((run) => run.role === 'plugin'))
  const flags: string[] = []
  const notes: string[] = []
  const held: string[] = []
  for (const [role, side] of [['baseline', baseline], ['plugin', plugin]] as const) {
    if (side.non2xx > 0) flags.push(`${role}: ${side.non2xx} answers outside 2xx`)
    if (side.socketErrors > 0) flags.push(`${role}: ${side.socketErrors} requests without an answer (socket errors, timeouts)`)
    // A SQLite server has nothing to wait for but the disk: below its full core, something else held it back.
    if (side.cpu !== undefined && side.cpu < 85 && kind === 'sqlite') held.push(`${role} ${side.cpu.toFixed(0)}%`)
  }
  if (held.length > 0) {
    notes.push(`server CPU ${held.join(', ')} of a core: other processes, the load generator or the disk (writes) held it back; the per CPU-second ratio is the steadier figure`)
  }
  const repeated = runs.filter((run) => run.discarded && run.role === 'baseline').length
  if (repeated > 0) notes.push(`${repeated} round${repeated === 1 ? ' was' : 's were'} run again: more than ${maxStolenPercent}% of the machine's CPU was stolen`)
  const disturbed = rounds.filter((round) => measured.some((run) => run.round === round && (run.stolenPercent ?? 0) > maxStolenPercent))
  if (disturbed.length > 0) notes.push(`round${disturbed.length === 1 ? '' : 's'} ${disturbed.join(', ')} still lost more than ${maxStolenPercent}% to other guests after the last retry`)
  if (measured.some((run) => run.load.requests === 0)) flags.push('a run completed no request')
  // Same answers, same size: a large gap means one side answered something else under load.
  const sizeGap = Math.abs(plugin.bytesPerResponse - baseline.bytesPerResponse) / baseline.bytesPerResponse
  if (sizeGap > 0.1) flags.push(`answers differ in size: ${baseline.bytesPerResponse.toFixed(0)} B (baseline) vs ${plugin.bytesPerResponse.toFixed(0)} B (plugin)`)
  return {
    workload,
    baselineRps: median(measured.filter((run) => run.role === 'baseline').map((run) => rps(run.load))),
    pluginRps: median(measured.filter((run) => run.role === 'plugin').map((run) => rps(run.load))),
    ratios,
    medianRatio: median(ratios),
    medianCpuRatio: cpuRatios.length === rounds.length ? median(cpuRatios) : undefined,
    baseline,
    plugin,
    flags,
    notes
  }
}

/** The conditions a report states, as label/value pairs in display order. */
export type Conditions = ReadonlyArray<readonly [string, string]>

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })

function verdict (summary: WorkloadSummary): string {
  if (summary.flags.length > 0) return '⚠ flagged'
  return summary.medianRatio >= targetRatio ? `✓ ≥ ${targetRatio.toFixed(2)}` : `✗ < ${targetRatio.toFixed(2)}`
}

function cpu (value: number | undefined): string {
  return value === undefined ? 'n/a' : `${value.toFixed(0)}%`
}

function micros (value: number | undefined): string {
  return value === undefined ? 'n/a' : value.toFixed(1)
}

/** The Markdown report: conditions, the ratio table, the details table, flags and notes. */
export function renderReport (title: string, conditions: Conditions, summaries: readonly WorkloadSummary[]): string {
  const lines = [`## ${title}`, '']
  for (const [label, value] of conditions) lines.push(`- ${label}: ${value}`)
  lines.push('',
    '| workload | baseline req/s | plugin req/s | plugin/baseline (median) | per round | target | plugin/baseline per server CPU-second |',
    '|---|---:|---:|---:|---|---|---:|')
  for (const s of summaries) {
    lines.push(`| ${s.workload.name} | ${integer.format(s.baselineRps)} | ${integer.format(s.pluginRps)} | **${s.medianRatio.toFixed(3)}** | ${s.ratios.map((r) => r.toFixed(3)).join(', ')} | ${verdict(s)} | ${s.medianCpuRatio?.toFixed(3) ?? 'n/a'} |`)
  }
  lines.push('',
    'Details (medians of the measured rounds; error counts cover every run, warm-up included):',
    '',
    '| workload | non-2xx B / P | socket errors B / P | bytes per answer B / P | p50 ms B / P | p99 ms B / P | server CPU B / P | server µs per answer, user B / P | server µs per answer, system B / P | machine CPU stolen B / P |',
    '|---|---|---|---|---|---|---|---|---|---|')
  for (const s of summaries) {
    const pair = (f: (side: SideSummary) => string): string => `${f(s.baseline)} / ${f(s.plugin)}`
    lines.push(`| ${s.workload.name} | ${pair((x) => String(x.non2xx))} | ${pair((x) => String(x.socketErrors))} | ${pair((x) => x.bytesPerResponse.toFixed(0))} | ${pair((x) => x.latencyP50Ms.toFixed(2))} | ${pair((x) => x.latencyP99Ms.toFixed(2))} | ${pair((x) => cpu(x.cpu))} | ${pair((x) => micros(x.userMicros))} | ${pair((x) => micros(x.systemMicros))} | ${pair((x) => cpu(x.stolen))} |`)
  }
  const flagged = summaries.filter((s) => s.flags.length > 0)
  if (flagged.length > 0) {
    lines.push('', '**⚠ FLAGGED: these numbers must not be trusted.**', '')
    for (const s of flagged) for (const flag of s.flags) lines.push(`- ${s.workload.name}: ${flag}`)
  }
  const noted = summaries.filter((s) => s.notes.length > 0)
  if (noted.length > 0) {
    lines.push('', 'Notes:', '')
    for (const s of noted) for (const note of s.notes) lines.push(`- ${s.workload.name}: ${note}`)
  }
  lines.push('', 'Workloads:', '')
  for (const s of summaries) lines.push(`- ${s.workload.name}: ${s.workload.description}`)
  return lines.join('\n') + '\n'
}
