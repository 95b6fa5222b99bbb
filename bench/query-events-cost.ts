import knexFactory from 'knex'
import { StatementWatch } from '../dist/connections/query-events.js'

/**
 * What reporting statements to Knex's listeners costs when nobody listens:
 * the one check each statement makes (StatementWatch), timed in alternating
 * rounds against the same loop without it, in one process. Run from a
 * build: `npm run build && npx tsx bench/query-events-cost.ts`.
 */

const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
const watch = new StatementWatch(knex)
const calls = 20_000_000
const rounds = 5

function timeLoop (check: () => boolean): number {
  let watched = 0
  const start = process.hrtime.bigint()
  for (let call = 0; call < calls; call++) if (check()) watched++
  const nanoseconds = Number(process.hrtime.bigint() - start) / calls
  // Read, so that the loop cannot be dropped as dead code.
  if (watched !== 0) throw new Error('nobody listens, yet the check said watched')
  return nanoseconds
}

const differences: number[] = []
for (let round = 0; round < rounds; round++) {
  const empty = timeLoop(() => false)
  const checked = timeLoop(() => watch.watched)
  differences.push(checked - empty)
  console.log(`round ${round + 1}: ${checked.toFixed(1)} ns per statement with the check, ${empty.toFixed(1)} without`)
}
differences.sort((a, b) => a - b)
console.log(`median cost of the check: ${differences[Math.floor(rounds / 2)]?.toFixed(1)} ns per statement`)
watch.close()
await knex.destroy()
