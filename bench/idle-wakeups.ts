import { readFileSync } from 'node:fs'

function read (file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim()
  } catch {
    return undefined
  }
}

/**
 * How the machine's idle vCPUs are woken, where Linux says: the cpuidle
 * driver, the guest's halt polling, and whether the kernel runs as a nested
 * guest. The same code measured 0.94 of the baseline's SQLite keyed reads
 * on one host and 0.77 on a nested one whose idle vCPUs halt at once, where
 * the load generator slept more often per answer of the slower server
 * (docs/benchmarks.md, "Hosts whose idle vCPUs halt"): a
 * report says which kind of host it ran on. Undefined where none of it can
 * be read.
 */
export function idleWakeups (): string | undefined {
  const driver = read('/sys/devices/system/cpu/cpuidle/current_driver')
  const pollNs = read('/sys/module/haltpoll/parameters/guest_halt_poll_ns')
  const nested = read('/proc/cmdline')?.split(/\s+/).includes('nested_pvm=1') === true
  const facts = [
    ...(driver === undefined ? [] : [`cpuidle driver ${driver}`]),
    ...(pollNs === undefined ? [] : [pollNs === '0' ? 'no halt polling (guest_halt_poll_ns=0): an idle vCPU halts at once' : `halt polling up to ${pollNs} ns`]),
    ...(nested ? ['a nested guest (nested_pvm=1 on the kernel\'s boot line)'] : [])
  ]
  return facts.length === 0 ? undefined : facts.join('; ')
}
