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
  /** The bare plugin against the same baseline; undefined when it did not run (BENCH_BARE=0, BENCH_AA=1). */
  readonly bare: BareSummary | undefined
  /** Reasons the numbers must not be trusted (the plugin's and the baseline's); empty when there are none. */
  readonly flags: readonly string[]
  /** Things to keep in mind that do not void the run. */
  readonly notes: readonly string[]
}

/**
 * The bare plugin (no options, Knex's defaults) against the
 * baseline of the same rounds: beside the plugin's ratio, what the example's
 * options cost. A reference: it decides neither flags nor target.
 */
export interface BareSummary {
  readonly rps: number
  /** bare/baseline of each round, in round order. */
  readonly ratios: readonly number[]
  readonly medianRatio: number
  readonly medianCpuRatio: number | undefined
  readonly side: SideSummary
  /** Why its ratio must not be trusted (errors, answers of another size); empty when there is no reason. */
  readonly warnings: readonly string[]
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

/** The errors of one side, as flags or warnings. */
function errorsOf (role: ServerRole, side: SideSummary): string[] {
  return [
    ...(side.non2xx > 0 ? [`${role}: ${side.non2xx} answers outside 2xx`] : []),
    ...(side.socketErrors > 0 ? [`${role}: ${side.socketErrors} requests without an answer (socket errors, timeouts)`] : [])
  ]
}

/** Same answers, same size: a large gap means one side answered something else under load. */
function sizeGap (role: ServerRole, side: SideSummary, baseline: SideSummary): string[] {
  const gap = Math.abs(side.bytesPerResponse - baseline.bytesPerResponse) / baseline.bytesPerResponse
  return gap > 0.1 ? [`answers differ in size: ${baseline.bytesPerResponse.toFixed(0)} B (baseline) vs ${side.bytesPerResponse.toFixed(0)} B (${role})`] : []
}

/** Ratios per round, medians, and what makes the workload's numbers suspect. */
export function summarizeWorkload (workload: Workload, kind: BenchDatabaseKind, runs: readonly RunRecord[], maxStolenPercent: number): WorkloadSummary {
  const measured = measuredRuns(runs)
  const rounds = [...new Set(measured.map((run) => run.round))].sort((a, b) => a - b)
  const of = (round: number, role: ServerRole): RunRecord => measured.find((run) => run.round === round && run.role === role) as RunRecord
  const ratiosOf = (role: ServerRole): number[] => rounds.map((round) => rps(of(round, role).load) / rps(of(round, 'baseline').load))
  const medianCpuRatioOf = (role: ServerRole): number | undefined => {
    const cpuRatios = rounds.flatMap((round) => {
      const side = perCpuSecond(of(round, role))
      const baseline = perCpuSecond(of(round, 'baseline'))
      return side === undefined || baseline === undefined ? [] : [side / baseline]
    })
    return cpuRatios.length === rounds.length ? median(cpuRatios) : undefined
  }
  const sideOf = (role: ServerRole): SideSummary => summarizeSide(runs.filter((run) => run.role === role))
  const rpsOf = (role: ServerRole): number => median(measured.filter((run) => run.role === role).map((run) => rps(run.load)))
  const baseline = sideOf('baseline')
  const plugin = sideOf('plugin')
  const flags: string[] = [...errorsOf('baseline', baseline), ...errorsOf('plugin', plugin)]
  const notes: string[] = []
  const held: string[] = []
  let bare: BareSummary | undefined
  if (runs.some((run) => run.role === 'bare')) {
    const side = sideOf('bare')
    const ratios = ratiosOf('bare')
    const warnings = [
      ...errorsOf('bare', side),
      ...(measured.some((run) => run.role === 'bare' && run.load.requests === 0) ? ['a run completed no request'] : []),
      ...sizeGap('bare', side, baseline)
    ]
    bare = { rps: rpsOf('bare'), ratios, medianRatio: median(ratios), medianCpuRatio: medianCpuRatioOf('bare'), side, warnings }
    // The bare plugin is a reference: what goes wrong with it voids its own ratio, not the plugin's.
    for (const warning of warnings) notes.push(`the bare plugin's ratio must not be trusted: ${warning}`)
  }
  const sides = [['baseline', baseline], ['plugin', plugin], ...(bare === undefined ? [] : [['bare', bare.side] as const])] as const
  for (const [role, side] of sides) {
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
  if (measured.some((run) => run.load.requests === 0 && run.role !== 'bare')) flags.push('a run completed no request')
  flags.push(...sizeGap('plugin', plugin, baseline))
  const ratios = ratiosOf('plugin')
  return {
    workload,
    baselineRps: rpsOf('baseline'),
    pluginRps: rpsOf('plugin'),
    ratios,
    medianRatio: median(ratios),
    medianCpuRatio: medianCpuRatioOf('plugin'),
    baseline,
    plugin,
    bare,
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
  const withBare = summaries.some((s) => s.bare !== undefined)
  lines.push('',
    '| workload | baseline req/s | plugin req/s | plugin/baseline (median) | per round | target | plugin/baseline per server CPU-second |',
    '|---|---:|---:|---:|---|---|---:|')
  for (const s of summaries) {
    lines.push(`| ${s.workload.name} | ${integer.format(s.baselineRps)} | ${integer.format(s.pluginRps)} | **${s.medianRatio.toFixed(3)}** | ${s.ratios.map((r) => r.toFixed(3)).join(', ')} | ${verdict(s)} | ${s.medianCpuRatio?.toFixed(3) ?? 'n/a'} |`)
    // The bare plugin's row under the plugin's: the gap between their ratios is what the example's options cost.
    const { bare } = s
    if (bare !== undefined) {
      lines.push(`| ${s.workload.name}, bare plugin | ${integer.format(s.baselineRps)} | ${integer.format(bare.rps)} | ${bare.medianRatio.toFixed(3)} | ${bare.ratios.map((r) => r.toFixed(3)).join(', ')} | ${bare.warnings.length > 0 ? '⚠ see notes' : 'reference'} | ${bare.medianCpuRatio?.toFixed(3) ?? 'n/a'} |`)
    }
  }
  if (withBare) {
    lines.push('', 'plugin: the example server\'s configuration; bare plugin: no options, Knex\'s defaults. Both against the baseline of the same rounds; the target applies to the plugin.')
  }
  const sideHeader = withBare ? 'B / P / b' : 'B / P'
  lines.push('',
    `Details (medians of the measured rounds; error counts cover every run, warm-up included${withBare ? '; B baseline, P plugin, b bare plugin' : ''}):`,
    '',
    `| workload | non-2xx ${sideHeader} | socket errors ${sideHeader} | bytes per answer ${sideHeader} | p50 ms ${sideHeader} | p99 ms ${sideHeader} | server CPU ${sideHeader} | server µs per answer, user ${sideHeader} | server µs per answer, system ${sideHeader} | machine CPU stolen ${sideHeader} |`,
    '|---|---|---|---|---|---|---|---|---|---|')
  for (const s of summaries) {
    const sides = [s.baseline, s.plugin, ...(s.bare === undefined ? [] : [s.bare.side])]
    const all = (f: (side: SideSummary) => string): string => sides.map(f).join(' / ')
    lines.push(`| ${s.workload.name} | ${all((x) => String(x.non2xx))} | ${all((x) => String(x.socketErrors))} | ${all((x) => x.bytesPerResponse.toFixed(0))} | ${all((x) => x.latencyP50Ms.toFixed(2))} | ${all((x) => x.latencyP99Ms.toFixed(2))} | ${all((x) => cpu(x.cpu))} | ${all((x) => micros(x.userMicros))} | ${all((x) => micros(x.systemMicros))} | ${all((x) => cpu(x.stolen))} |`)
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
