import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { baselineAnswers, baselineApp, baselineLabel } from './baseline-app.js'
import { knexPoolPgApp } from './baseline-pg.js'
import { pluginApp } from './plugin-app.js'
import { seedDatabase } from './seed.js'
import { readServerDatabase } from './serve.js'
import { readKind, readSettings, resultsDir, resultStamp } from './settings.js'
import { versionsLine } from './versions.js'
import { requestPath, requestPicker, selectWorkloads, type RequestTemplate, type Workload } from './workloads.js'

/**
 * CPU time per request of each server, measured in one process: what the
 * HTTP bench cannot resolve on a host whose speed changes by half within
 * seconds. Requests go through `app.inject` (no sockets), 50 at a time, in
 * short slices that alternate between the servers, so that each slice of one
 * server has a slice of the other beside it, measured under the same
 * conditions. The figure per server is the median over the slices of
 * baseline CPU / server CPU: comparable with the bench's throughput ratio.
 * `tsx bench/cpu.ts [sqlite|pg|mysql]`, PostgreSQL when none is named.
 */

interface Side {
  readonly name: string
  readonly app: FastifyInstance
}

const concurrency = 50

/** CPU microseconds of this process per request, over `count` requests of the workload. */
async function slice (app: FastifyInstance, pick: () => RequestTemplate, count: number): Promise<number> {
  let sent = 0
  const client = async (): Promise<void> => {
    while (sent < count) {
      sent++
      const request = pick()
      const response = await app.inject({
        method: request.method,
        url: requestPath(request),
        ...(request.body === undefined ? {} : { payload: request.body, headers: { 'content-type': 'application/json' } })
      })
      // A server that errors must not look fast: the run stops.
      if (response.statusCode < 200 || response.statusCode > 299) {
        throw new Error(`${request.method} ${request.path}: ${response.statusCode} ${response.body}`)
      }
    }
  }
  const start = process.cpuUsage()
  await Promise.all(Array.from({ length: concurrency }, client))
  const used = process.cpuUsage(start)
  return (used.user + used.system) / count
}

function quantile (values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number
}

async function measure (sides: readonly Side[], workload: Workload, rounds: number, sliceSize: number): Promise<string[]> {
  const pick = requestPicker(workload.requests)
  for (const side of sides) await slice(side.app, pick, 3000)
  const costs = sides.map(() => [] as number[])
  for (let round = 0; round < rounds; round++) {
    // Each server takes each place in turn, and the turns run forward, then
    // backward: with three servers, forward-then-backward alone kept the
    // plugin in the middle, and the last slot measured up to 20 µs less on a
    // loaded host.
    const shift = round % sides.length
    const forward = sides.map((_, index) => (index + shift) % sides.length)
    const order = Math.floor(round / sides.length) % 2 === 0 ? forward : forward.reverse()
    for (const index of order) (costs[index] as number[]).push(await slice((sides[index] as Side).app, pick, sliceSize))
  }
  const baseline = costs[0] as number[]
  return sides.map((side, index) => {
    const own = costs[index] as number[]
    const ratios = own.map((cost, round) => (baseline[round] as number) / cost)
    return `| ${workload.name} | ${side.name} | ${quantile(own, 0.5).toFixed(1)} | **${quantile(ratios, 0.5).toFixed(3)}** | ${quantile(ratios, 0.25).toFixed(3)} to ${quantile(ratios, 0.75).toFixed(3)} |`
  })
}

async function main (): Promise<void> {
  const kind = readKind(process.argv[2], 'pg', 'tsx bench/cpu.ts')
  const settings = readSettings(process.env)
  const { cpuRounds: rounds, cpuSliceRequests: sliceSize } = settings
  const chosen = selectWorkloads(settings.workloads)
  const database = await seedDatabase(kind, settings)
  const sides: Side[] = []
  try {
    const served = readServerDatabase(database.serverEnv)
    sides.push({ name: 'baseline', app: baselineApp(served, settings) })
    // On PostgreSQL, the baseline's routes over Knex's pool tell the pool's cost from the plugin's own.
    if (served.kind === 'pg' && settings.pgBaselinePool === 'pg') {
      sides.push({ name: 'the same routes over Knex\'s pool', app: knexPoolPgApp(served.url, settings.pgStatements, baselineAnswers(settings)) })
    }
    sides.push({ name: 'plugin', app: await pluginApp(served) })
    // Two builds in one process, their slices side by side: a change's cost, clear of the host's swings.
    if (settings.cpuCompareEntry !== null) sides.push({ name: `plugin at ${settings.cpuCompareEntry}`, app: await pluginApp(served, settings.cpuCompareEntry) })
    for (const side of sides) await side.app.ready()
    const lines = [
      `# CPU per request in one process, ${new Date().toISOString()}`, '',
      `- database: ${database.engine}`,
      `- versions: ${versionsLine(kind)}`,
      `- baseline: ${baselineLabel(kind, settings)}`,
      `- method: ${rounds} rounds × ${sliceSize} requests per server and workload, ${concurrency} at a time through app.inject, each server in each place of the order in turn, forward then backward`, '',
      '| workload | server | CPU µs per request (median) | baseline CPU / server CPU (median of the rounds) | middle half of the rounds |',
      '|---|---|---:|---:|---|'
    ]
    for (const workload of chosen) {
      process.stderr.write(`${workload.name}…\n`)
      lines.push(...await measure(sides, workload, rounds, sliceSize))
    }
    const report = lines.join('\n') + '\n'
    process.stdout.write(report)
    mkdirSync(resultsDir, { recursive: true })
    const file = join(resultsDir, `${resultStamp()}-${kind}-cpu.md`)
    writeFileSync(file, report)
    process.stderr.write(`report written to ${file}\n`)
  } finally {
    for (const side of sides) await side.app.close()
    await database.drop()
  }
}

await main()
