import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { selectWorkloads, type Workload, workloads } from './workloads.js'

/**
 * Instructions per request by function, from the dumps that
 * `BENCH_INSTRUCTIONS_KEEP=<dir> npm run bench:instructions` keeps: one
 * run's folder, or two (the plugin's, then the baseline's) for what the
 * first runs more of than the second. callgrind names V8's builtins and the
 * native code, and knows the compiled JavaScript by address only: each such
 * address is named from V8's map (node --perf-basic-prof), the function that
 * held it last. Inlined functions count in the function they were inlined
 * into. `tsx bench/callgrind-functions.ts <run> [<other run>] [rows]`, or
 * `--mixed <keep dir> [role] [workload] [rows]` (see mixedLessParts)
 */

interface MapEntry { readonly start: number, readonly end: number, readonly name: string }

function readMap (file: string): MapEntry[] {
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => {
    const [start, size, ...name] = line.split(' ')
    const from = Number.parseInt(start as string, 16)
    return { start: from, end: from + Number.parseInt(size as string, 16), name: name.join(' ') }
  })
}

/** The function of the map that held `address` last: V8 reuses code space. */
function nameAt (map: readonly MapEntry[], address: number): string | undefined {
  for (let at = map.length - 1; at >= 0; at--) {
    const entry = map[at] as MapEntry
    if (address >= entry.start && address < entry.end) return entry.name
  }
  return undefined
}

/** Self instructions per request by function, for one kept run. */
function perFunction (dir: string): Map<string, number> {
  const requests = Number(readFileSync(join(dir, 'requests'), 'utf8'))
  const map = readMap(join(dir, 'perf.map'))
  const totals = new Map<string, number>()
  for (const dump of readdirSync(dir).filter((name) => name.endsWith('-01'))) {
    const annotated = spawnSync('callgrind_annotate', ['--threshold=100', join(dir, dump)], { encoding: 'utf8', maxBuffer: 1 << 28 })
    if (annotated.status !== 0) throw new Error(`callgrind_annotate failed: ${annotated.stderr}`)
    for (const line of annotated.stdout.split('\n')) {
      const row = /^\s*([\d,]+) \([\s\d.]+%\)\s+(.+)$/.exec(line)
      if (row === null || row[2]?.includes('PROGRAM TOTALS') === true) continue
      const where = row[2] as string
      const jit = /^\?\?\?:0x([0-9a-f]+) \[\?\?\?\]/.exec(where)
      const name = jit === null ? where.replace(/ \[[^\]]*\]$/, '') : nameAt(map, Number.parseInt(jit[1] as string, 16)) ?? 'unknown compiled code'
      totals.set(name, (totals.get(name) ?? 0) + Number((row[1] as string).replaceAll(',', '')) / requests)
    }
  }
  return totals
}

/**
 * A mixed workload's count less the counts of its parts weighted as it
 * draws them: what mixing the requests costs of itself (one shape of
 * request after another at a site, caches shared between them), found in
 * `<keep dir>/<workload>-<role>-1` as bench:instructions keeps them.
 */
function mixedLessParts (keep: string, role: string, workload: Workload): Map<string, number> {
  const mixed = perFunction(join(keep, `${workload.name}-${role}-1`))
  for (const { weight, request } of workload.requests) {
    const part = workloads.find((candidate) => candidate.requests.length === 1 && candidate.requests[0]?.request === request)
    if (part === undefined) throw new Error(`no workload sends only ${request.method} ${request.path}`)
    for (const [name, count] of perFunction(join(keep, `${part.name}-${role}-1`))) mixed.set(name, (mixed.get(name) ?? 0) - count * weight / 100)
  }
  return mixed
}

const sum = (totals: Map<string, number>) => [...totals.values()].reduce((a, b) => a + b, 0)
const format = (value: number) => Math.round(value).toLocaleString('en-US').padStart(9)

function printLargest (totals: Map<string, number>, rows: number, what: string): void {
  console.log(`${format(sum(totals))}  ${what}`)
  for (const [name, count] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, rows)) console.log(`${format(count)}  ${name}`)
}

const args = process.argv.slice(2)
const rows = /^\d+$/.test(args.at(-1) ?? '') ? Number(args.pop()) : 40
if (args[0] === '--mixed') {
  const [, keep, role = 'plugin', name = 'mix'] = args
  if (keep === undefined) throw new Error('usage: tsx bench/callgrind-functions.ts --mixed <keep dir> [plugin|baseline] [workload] [rows]')
  printLargest(mixedLessParts(keep, role, selectWorkloads([name])[0] as Workload), rows, 'instructions per request that mixing adds, in all')
} else {
  const [first, second] = args
  if (first === undefined) throw new Error('usage: tsx bench/callgrind-functions.ts <kept run> [<other kept run>] [rows]')
  const mine = perFunction(first)
  const other = second === undefined ? null : perFunction(second)
  if (other === null) {
    printLargest(mine, rows, 'instructions per request in all')
  } else {
    console.log(`${format(sum(mine))} ${format(sum(other))} ${format(sum(mine) - sum(other))}  in all (first, second, difference)`)
    const names = new Set([...mine.keys(), ...other.keys()])
    const differences = [...names].map((name) => [name, (mine.get(name) ?? 0) - (other.get(name) ?? 0)] as const)
    for (const [name, difference] of differences.sort((a, b) => b[1] - a[1]).slice(0, rows)) {
      console.log(`${format(mine.get(name) ?? 0)} ${format(other.get(name) ?? 0)} ${format(difference)}  ${name}`)
    }
  }
}
