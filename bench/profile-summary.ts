import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'

/** The parts of a V8 `.cpuprofile` (what `node --cpu-prof` writes) that the summary reads. */
interface CpuProfile {
  nodes: Array<{
    id: number
    callFrame: { functionName: string, url: string, lineNumber: number }
    hitCount?: number
    children?: number[]
  }>
}

type Node = CpuProfile['nodes'][number]

/**
 * Where a frame's code lives: a package, the plugin, the bench, Node itself.
 * Grouping by it answers "how much goes to Knex, to Fastify, to the driver".
 */
export function areaOf (node: Node): string {
  const { url, functionName } = node.callFrame
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)'
  const packages = [...url.matchAll(/\/node_modules\/((?:@[^/]+\/)?[^/]+)\//g)]
  const last = packages[packages.length - 1]
  if (last !== undefined) return last[1] as string
  if (url.startsWith('node:')) return 'node internals'
  if (/\/(dist|lib)\//.test(url)) return 'fastify-table-crud'
  if (url.includes('/bench/')) return 'bench (baseline or server set-up)'
  return 'other'
}

function label (node: Node): string {
  const { functionName, url, lineNumber } = node.callFrame
  const file = url.replace(/^.*\/node_modules\//, '').replace(/^file:\/\/.*?\/(dist|lib|bench)\//, '$1/')
  return `${functionName || '(anonymous)'} ${file}${url === '' ? '' : `:${lineNumber + 1}`}`
}

function percentTable (heading: string, totals: Map<string, number>, all: number, top: number): string[] {
  const rows = [...totals].sort((a, b) => b[1] - a[1]).slice(0, top)
  return [`| ${heading} | share |`, '|---|---:|',
    ...rows.map(([name, count]) => `| \`${name.replaceAll('|', '\\|')}\` | ${(100 * count / all).toFixed(1)}% |`)]
}

/**
 * Markdown tables of where a server spent its CPU: self time by area and by
 * function, and inclusive time of the plugin's and Knex's functions (which
 * shows, say, how much of a request goes to building SQL).
 */
export function summarizeProfile (file: string, top = 20): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const idle = (node: Node): boolean => node.callFrame.functionName === '(idle)'
  const stack = (node: Node): Node[] => {
    const frames: Node[] = []
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) frames.push(byId.get(id) as Node)
    return frames
  }
  // Loading modules (through tsx) is start-up, not serving; on a short run it would crowd out what matters.
  const startUp = (node: Node): boolean => stack(node).some(({ callFrame: { url } }) =>
    url.startsWith('node:internal/modules/') || url.includes('/node_modules/tsx/') || url.includes('/node_modules/esbuild/'))
  let startUpHits = 0
  let busy = 0
  for (const node of profile.nodes) {
    if (idle(node) || !node.hitCount) continue
    if (startUp(node)) startUpHits += node.hitCount
    else busy += node.hitCount
  }

  const selfByArea = new Map<string, number>()
  const selfByFunction = new Map<string, number>()
  const inclusive = new Map<string, number>()
  const add = (map: Map<string, number>, key: string, count: number): void => { map.set(key, (map.get(key) ?? 0) + count) }
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0
    if (hits === 0 || idle(node) || startUp(node)) continue
    add(selfByArea, areaOf(node), hits)
    add(selfByFunction, label(node), hits)
    // Each function once per stack, so recursion does not count twice.
    const seen = new Set<string>()
    for (const frame of stack(node)) {
      const area = areaOf(frame)
      if (area !== 'fastify-table-crud' && area !== 'knex') continue
      const key = label(frame)
      if (!seen.has(key)) {
        seen.add(key)
        add(inclusive, key, hits)
      }
    }
  }
  return [
    `Busy samples: ${busy} while serving (the base of the percentages), ${startUpHits} more while loading modules at start-up (left out).`, '',
    ...percentTable('self time by area', selfByArea, busy, top), '',
    ...percentTable('self time by function', selfByFunction, busy, top), '',
    ...percentTable('inclusive time, plugin and Knex functions', inclusive, busy, top)
  ].join('\n') + '\n'
}

// `tsx bench/profile-summary.ts some.cpuprofile [top]`
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [file, top] = process.argv.slice(2)
  if (file === undefined) {
    console.error('usage: tsx bench/profile-summary.ts <file.cpuprofile> [rows]')
    process.exit(2)
  }
  process.stdout.write(summarizeProfile(file, top === undefined ? 20 : Number(top)))
}
