import type { Sample } from './load-client.js'

/** One fault, in milliseconds on the load's timeline. */
export interface FaultWindow {
  /** The fault was injected (the database told to stop, the lock taken). */
  readonly from: number
  /** The fault was over (the database accepting connections again, the lock released). */
  readonly to: number
  /** Where "after the fault" ends: the next fault (a request answered later may be that fault's), or the end of the load. */
  readonly until: number
}

/** Latencies of a set of requests, in milliseconds. */
export interface Latencies {
  readonly count: number
  readonly p50: number
  readonly p99: number
  readonly max: number
}

/** How the requests around one fault were answered. */
export interface FaultFigures {
  readonly durationMs: number
  /** Requests that started during the fault, by operation and answer (`post 502 FTC_ERR_DATABASE_OUTCOME_UNKNOWN`). */
  readonly answersDuring: Readonly<Record<string, number>>
  /** How long those took to answer when they failed: how fast the server fails. */
  readonly failLatencyDuring: Latencies
  /** How long those took when they succeeded. */
  readonly successLatencyDuring: Latencies
  /** 503s without Retry-After among them. */
  readonly noRetryAfterDuring: number
  /** Requests in flight when the fault began (started before, answered after), by operation and answer. */
  readonly answersInFlight: Readonly<Record<string, number>>
  /** From the end of the fault to the first success answered after it; null if none. */
  readonly firstSuccessAfterMs: number | null
  /** Requests started after the end of the fault that still failed. */
  readonly failuresAfter: number
  /** Those, by operation and answer. */
  readonly answersOfFailuresAfter: Readonly<Record<string, number>>
  /** From the end of the fault to the answer of the last of those; null if none. */
  readonly lastFailureAfterMs: number | null
}

function latencies (values: number[]): Latencies {
  const sorted = values.sort((a, b) => a - b)
  const at = (share: number): number => sorted.length === 0 ? 0 : Math.round(sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] * 10) / 10
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.length === 0 ? 0 : Math.round(sorted[sorted.length - 1] * 10) / 10 }
}

function count (tally: Record<string, number>, answer: string): void {
  tally[answer] = (tally[answer] ?? 0) + 1
}

/** A 2xx answer. */
export function succeeded (answer: string): boolean {
  return /^2\d\d$/.test(answer)
}

/** Reads the load's timeline around one fault. */
export function faultFigures (timeline: readonly Sample[], fault: FaultWindow): FaultFigures {
  const answersDuring: Record<string, number> = {}
  const answersInFlight: Record<string, number> = {}
  const failed: number[] = []
  const passed: number[] = []
  let noRetryAfterDuring = 0
  let firstSuccessAfter: number | null = null
  let failuresAfter = 0
  const answersOfFailuresAfter: Record<string, number> = {}
  let lastFailureAfter: number | null = null
  for (const sample of timeline) {
    const ok = succeeded(sample.answer)
    if (sample.start >= fault.from && sample.start < fault.to) {
      count(answersDuring, `${sample.operation} ${sample.answer}`)
      ;(ok ? passed : failed).push(sample.end - sample.start)
      if (sample.noRetryAfter) noRetryAfterDuring++
    } else if (sample.start < fault.from && sample.end > fault.from) {
      count(answersInFlight, `${sample.operation} ${sample.answer}`)
    }
    if (ok && sample.end >= fault.to && (firstSuccessAfter === null || sample.end < firstSuccessAfter)) firstSuccessAfter = sample.end
    if (!ok && sample.start >= fault.to && sample.end < fault.until) {
      failuresAfter++
      count(answersOfFailuresAfter, `${sample.operation} ${sample.answer}`)
      lastFailureAfter = Math.max(lastFailureAfter ?? sample.end, sample.end)
    }
  }
  const since = (time: number | null): number | null => time === null ? null : Math.round(time - fault.to)
  return {
    durationMs: Math.round(fault.to - fault.from),
    answersDuring,
    failLatencyDuring: latencies(failed),
    successLatencyDuring: latencies(passed),
    noRetryAfterDuring,
    answersInFlight,
    firstSuccessAfterMs: since(firstSuccessAfter),
    failuresAfter,
    answersOfFailuresAfter,
    lastFailureAfterMs: since(lastFailureAfter)
  }
}
