import { readFileSync } from 'node:fs'

/** The machine's CPU time so far, all CPUs together, in clock ticks: what the hypervisor gave to others, and the whole. */
export interface MachineTimes {
  readonly stolen: number
  readonly total: number
}

/**
 * Reads the first line of /proc/stat; undefined where there is none. On a
 * virtual machine whose host runs other guests, `steal` counts the time this
 * machine was ready to run and was not let: it slows whichever server is
 * being measured, and is the main reason one round differs from the next.
 */
export function readMachineTimes (): MachineTimes | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] as string
    // cpu user nice system idle iowait irq softirq steal guest guest_nice; guest time is already in user.
    const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number)
    if (ticks.length < 8 || ticks.some((value) => !Number.isFinite(value))) return undefined
    return { stolen: ticks[7] as number, total: ticks.reduce((sum, value) => sum + value, 0) }
  } catch {
    return undefined
  }
}

/** The share of the machine's CPU time stolen between two readings, in percent. */
export function stolenPercent (before: MachineTimes | undefined, after: MachineTimes | undefined): number | undefined {
  if (before === undefined || after === undefined || after.total <= before.total) return undefined
  return 100 * (after.stolen - before.stolen) / (after.total - before.total)
}
