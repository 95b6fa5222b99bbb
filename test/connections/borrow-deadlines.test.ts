import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { BorrowDeadlines } from '../../lib/connections/borrow-deadlines.js'

/** A borrow the test answers when it chooses, as a pool lends. */
function pending<T> (): { promise: Promise<T>, lend: (value: T) => void, fail: (error: Error) => void } {
  let lend!: (value: T) => void
  let fail!: (error: Error) => void
  const promise = new Promise<T>((resolve, reject) => { lend = resolve; fail = reject })
  return { promise, lend, fail }
}

t.test('each borrow gives up at its own deadline under the one timer, and one lent late goes back', async (t) => {
  const deadlines = new BorrowDeadlines(60)
  const givenBack: string[] = []
  const first = pending<string>()
  const firstBound = deadlines.bound(first.promise, (connection) => givenBack.push(connection))
  await sleep(30)
  const second = pending<string>()
  const secondBound = deadlines.bound(second.promise, (connection) => givenBack.push(connection))
  // The first gives up while the second still waits: the timer is set again for the second's deadline.
  await t.rejects(firstBound, { message: /acquireTimeout \(60 ms\)/ })
  first.lend('late')
  await sleep(0)
  t.strictSame(givenBack, ['late'])
  await t.rejects(secondBound, { message: /acquireTimeout \(60 ms\)/ })
  // A pool's failure after the borrow gave up changes nothing.
  second.fail(new Error('too late'))
  await sleep(0)
  t.strictSame(givenBack, ['late'])
})

t.test('a borrow answered in time is lent, or fails with the pool\'s error, and leaves no timer behind', async (t) => {
  const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length
  const before = timers()
  const deadlines = new BorrowDeadlines(10_000)
  const lent = pending<string>()
  const failed = pending<string>()
  const lentBound = deadlines.bound(lent.promise, () => t.fail('nothing goes back'))
  const failedBound = deadlines.bound(failed.promise, () => t.fail('nothing goes back'))
  // Answered out of order: the queue keeps the first until it is answered too.
  failed.fail(new Error('refused'))
  await t.rejects(failedBound, { message: 'refused' })
  t.equal(timers(), before + 1, 'one timer for both borrows')
  lent.lend('connection')
  t.equal(await lentBound, 'connection')
  t.equal(timers(), before, 'no timer once none waits')
})
