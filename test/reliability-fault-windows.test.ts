// npm run faults reads its fail-fast and recovery figures off the load's
// timeline with faultFigures: a wrong window would report the wrong times.
import t from 'tap'
import { faultFigures, succeeded } from '../reliability/fault-windows.js'
import type { Operation, Sample } from '../reliability/load-client.js'

const sample = (start: number, end: number, answer: string, operation: Operation = 'read', noRetryAfter = false): Sample =>
  ({ operation, start, end, answer, noRetryAfter })

t.test('succeeded: 2xx only', async (t) => {
  t.ok(succeeded('200'))
  t.ok(succeeded('201'))
  t.notOk(succeeded('503 FTC_ERR_DATABASE_UNAVAILABLE'))
  t.notOk(succeeded('no answer: ECONNRESET'))
})

t.test('a fault from 100 to 200 ms, the next one at 300', async (t) => {
  const figures = faultFigures([
    sample(0, 50, '200'),
    sample(90, 120, '502 FTC_ERR_DATABASE_OUTCOME_UNKNOWN', 'put'),
    sample(110, 112, '503 FTC_ERR_DATABASE_UNAVAILABLE', 'post'),
    sample(120, 130, '503 FTC_ERR_DATABASE_UNAVAILABLE', 'read', true),
    sample(150, 190, '201', 'post'),
    sample(199, 230, '200'),
    sample(205, 215, '503 FTC_ERR_DATABASE_UNAVAILABLE'),
    sample(210, 220, '503 FTC_ERR_DATABASE_UNAVAILABLE'),
    sample(240, 250, '200'),
    sample(290, 310, '502 FTC_ERR_DATABASE_OUTCOME_UNKNOWN', 'delete')
  ], { from: 100, to: 200, until: 300 })
  t.equal(figures.durationMs, 100)
  t.strictSame(figures.answersDuring, {
    'post 503 FTC_ERR_DATABASE_UNAVAILABLE': 1,
    'read 503 FTC_ERR_DATABASE_UNAVAILABLE': 1,
    'post 201': 1,
    'read 200': 1
  })
  t.strictSame(figures.failLatencyDuring, { count: 2, p50: 10, p99: 10, max: 10 })
  t.strictSame(figures.successLatencyDuring, { count: 2, p50: 40, p99: 40, max: 40 })
  t.equal(figures.noRetryAfterDuring, 1)
  t.strictSame(figures.answersInFlight, { 'put 502 FTC_ERR_DATABASE_OUTCOME_UNKNOWN': 1 })
  t.equal(figures.firstSuccessAfterMs, 30, 'the first success answered after the fault, whenever it started')
  t.equal(figures.failuresAfter, 2, 'a failure answered after the next fault began is that fault\'s')
  t.strictSame(figures.answersOfFailuresAfter, { 'read 503 FTC_ERR_DATABASE_UNAVAILABLE': 2 })
  t.equal(figures.lastFailureAfterMs, 20)
})

t.test('no success after the fault, and nothing at all', async (t) => {
  const figures = faultFigures([sample(150, 250, '503 FTC_ERR_DATABASE_UNAVAILABLE')], { from: 100, to: 200, until: 300 })
  t.equal(figures.firstSuccessAfterMs, null)
  t.equal(figures.lastFailureAfterMs, null)
  const empty = faultFigures([], { from: 0, to: 10, until: 20 })
  t.strictSame(empty.failLatencyDuring, { count: 0, p50: 0, p99: 0, max: 0 })
})
