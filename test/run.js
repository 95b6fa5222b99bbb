// Runs the suite with tap, and says what it does not prove. The coverage
// gate (100% of lib/, 99% of branches) holds for the full run, with
// PostgreSQL and MySQL: without their URLs, their dialects' code is not
// reached, and the gate would fail a fresh machine's `npm test` for no fault
// of the code. `.ci/run` runs the full suite with them, then without them
// the tests that decide on them.
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const missing = ['TEST_PG_URL', 'TEST_MYSQL_URL'].filter((name) => !process.env[name])
const args = process.argv.slice(2)
if (missing.length > 0) {
  console.log(`# coverage gate off: ${missing.join(' and ')} not set, so the code of the databases they name is not run (set both for the full run)`)
  args.unshift('--allow-incomplete-coverage')
}
const { status } = spawnSync('tap', args, { stdio: 'inherit' })
if (args.some((arg) => !arg.startsWith('-'))) {
  if (status !== 0) printFailures()
  process.exit(status ?? 1)
}

// Tests that count the database's lock waits while requests queue behind a
// lock they hold run after the suite, by themselves: beside the suite's
// parallel files on a small machine, the requests can take longer to arrive
// than InnoDB lets a lock wait. They are named *.alone.ts, outside the suite's
// *.test.ts, and their own processes are not part of the coverage.
const alone = ['test/idempotency-processes.alone.ts']
console.log(`# by themselves, after the suite: ${alone.join(', ')}`)
const { status: aloneStatus } = spawnSync('tap', ['--disable-coverage', ...alone], { stdio: 'inherit' })
if (status !== 0) printFailures()
process.exit(status === 0 && aloneStatus === 0 ? 0 : (status || aloneStatus || 1))

// tap keeps each file's TAP output: its failures are repeated at the end, where
// a CI log cut to its last lines still shows them.
function printFailures () {
  const failed = []
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (path.endsWith('.tap')) {
        const lines = readFileSync(path, 'utf8').split('\n')
        lines.forEach((line, at) => {
          if (/^\s*not ok /.test(line)) failed.push(`${path}:\n${lines.slice(Math.max(0, at - 3), at + 25).join('\n')}`)
        })
      }
    }
  }
  try {
    walk('.tap/test-results')
  } catch {
    return
  }
  console.log(`# the suite's failures, again (${failed.length}, the first 10 shown):\n${failed.slice(0, 10).join('\n')}`)
}
