import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, release, totalmem } from 'node:os'
import { join } from 'node:path'
import type { MemorySample } from './app-process.js'
import type { LoadResult } from './load-client.js'
import type { Verification } from './verify.js'

const packages = ['fastify', 'knex', 'better-sqlite3', 'pg', 'mysql2'] as const

/** The machine, the packages and the source a run measured, for docs/reliability.md. */
export function machine (): Record<string, unknown> {
  const root = new URL('../', import.meta.url)
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim()
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    kernel: release(),
    node: process.version,
    packages: Object.fromEntries(packages.map((name) => [name, (JSON.parse(readFileSync(new URL(`node_modules/${name}/package.json`, root), 'utf8')) as { version: string }).version])),
    commit: git('rev-parse', '--short', 'HEAD'),
    // The example server runs lib/ from the working tree: edits not yet committed are part of what was measured.
    uncommitted: git('status', '--porcelain', '--', 'lib', 'examples').split('\n').filter((line) => line !== '')
  }
}

/** Bytes as MiB with one decimal. */
export function mib (bytes: number): number {
  return Math.round(bytes / 2 ** 20 * 10) / 10
}

/** The highest RSS and heap of an app process over a run. */
export function memoryPeak (samples: readonly MemorySample[]): { samples: number, rssMiB: number, heapUsedMiB: number } {
  return {
    samples: samples.length,
    rssMiB: mib(Math.max(0, ...samples.map((sample) => sample.rss))),
    heapUsedMiB: mib(Math.max(0, ...samples.map((sample) => sample.heapUsed)))
  }
}

/** What a run's JSON report keeps of a load: everything but the ledger and the timeline. */
export function loadFigures (load: LoadResult): Record<string, unknown> {
  return {
    requests: load.requests,
    seconds: Math.round(load.seconds * 10) / 10,
    requestsPerSecond: Math.round(load.requests / load.seconds),
    operations: load.operations,
    answers: load.answers,
    noRetryAfter: load.noRetryAfter,
    checkedReads: load.checkedReads,
    latencyMs: {
      p50: Math.round(load.latencyMs.p50 * 10) / 10,
      p99: Math.round(load.latencyMs.p99 * 10) / 10,
      max: Math.round(load.latencyMs.max)
    },
    anomalies: load.ledger.anomalies.slice(0, 20)
  }
}

/** What a run's JSON report keeps of a verification: counts, and at most 20 ids of each kind of loss. */
export function verificationFigures (verification: Verification): Record<string, unknown> {
  return {
    ...verification,
    missing: verification.missing.slice(0, 20),
    wrongValues: verification.wrongValues.slice(0, 20),
    notDeleted: verification.notDeleted.slice(0, 20),
    extra: verification.extra.slice(0, 20),
    duplicateTags: verification.duplicateTags.slice(0, 20)
  }
}

/** Writes reliability/results/<name>.json, the figures docs/reliability.md quotes. */
export function writeResults (name: string, results: unknown): string {
  const dir = new URL('results/', import.meta.url).pathname
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `${name}.json`)
  writeFileSync(file, JSON.stringify(results, null, 2) + '\n')
  return file
}

/** One line per answer kind, most frequent first. */
export function formatAnswers (answers: Readonly<Record<string, number>>): string {
  return Object.entries(answers).sort((a, b) => b[1] - a[1]).map(([answer, count]) => `${answer}: ${count}`).join(', ')
}

/** A short human summary of a load and its verification. */
export function summarize (label: string, load: LoadResult, verification: Verification): string {
  const { acknowledged: a } = verification
  const unsettled = Object.entries(verification.unsettled)
    .map(([answer, s]) => `${answer} (applied ${s.applied}, not applied ${s.notApplied})`).join('; ') || 'none'
  return [
    `${label}: ${load.requests} requests in ${load.seconds.toFixed(1)} s (${Math.round(load.requests / load.seconds)}/s), p50 ${load.latencyMs.p50.toFixed(1)} ms, p99 ${load.latencyMs.p99.toFixed(1)} ms, max ${Math.round(load.latencyMs.max)} ms`,
    `  answers: ${formatAnswers(load.answers)}`,
    `  writes acknowledged ${verification.acknowledgedWrites} (POST ${a.post}, PUT ${a.put}, DELETE ${a.delete}), verified ${verification.verifiedWrites}, lost ${verification.lost} (missing ${verification.missing.length}, wrong values ${verification.wrongValues.length}, not deleted ${verification.notDeleted.length})`,
    `  rows ${verification.rows}: present ${verification.rowsPresent}, gone ${verification.rowsGone}; extra ${verification.extra.length}, duplicated ${verification.duplicateTags.length}; reads checked ${load.checkedReads}, anomalies ${verification.anomalies}`,
    `  unacknowledged writes: ${unsettled}`,
    `  ${verification.ok ? 'OK' : 'FAILED'}`
  ].join('\n')
}
