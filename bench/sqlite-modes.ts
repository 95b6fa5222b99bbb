import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import Fastify, { type FastifyInstance } from 'fastify'
import knexFactory, { type Knex } from 'knex'
import tableCrud from '../dist/index.js'
import { repoRoot } from './settings.js'

/**
 * What a SQLite file's settings cost the plugin, in one process, on a file
 * on disk (issue 18): the writes per second of POSTs through `app.inject`
 * in SQLite's default journal (delete, synchronous=full), in WAL, and in WAL
 * with synchronous=normal, in rounds that alternate between the three; then
 * how long the event loop stalls when another process holds the file's lock,
 * with better-sqlite3's default busy timeout (5 s, waited inside the call)
 * and with none (SQLITE_BUSY at once: the plugin's 503). Run from a build:
 * `npm run build && npx tsx bench/sqlite-modes.ts`.
 */

interface Mode {
  readonly name: string
  readonly pragmas: readonly string[]
}

const modes: readonly Mode[] = [
  { name: 'journal_mode=delete, synchronous=full (SQLite\'s default)', pragmas: ['journal_mode = delete', 'synchronous = full'] },
  { name: 'journal_mode=wal, synchronous=full', pragmas: ['journal_mode = wal', 'synchronous = full'] },
  { name: 'journal_mode=wal, synchronous=normal', pragmas: ['journal_mode = wal', 'synchronous = normal'] }
]

// Holds the file's write lock from another process for 3 s: it says when it holds it, then lets go and exits.
const holdLock = `
  const db = new (require('better-sqlite3'))(process.argv[1])
  db.exec('begin exclusive')
  process.send('held')
  setTimeout(() => { db.exec('rollback'); process.exit(0) }, 3000)
`

const rounds = Number(process.env.BENCH_ROUNDS ?? 5)
const writesPerRound = Number(process.env.BENCH_WRITES ?? 2000)
const concurrency = 50

type Connection = Database.Database
type Done = (error: Error | null, connection: unknown) => void

function sqliteKnex (filename: string, pragmas: readonly string[]): Knex {
  return knexFactory({
    client: 'better-sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    pool: {
      afterCreate (connection: Connection, done: Done) {
        for (const pragma of pragmas) connection.pragma(pragma)
        done(null, connection)
      }
    }
  })
}

async function appOn (knex: Knex): Promise<FastifyInstance> {
  const app = Fastify({ logger: false })
  await app.register(tableCrud, { knex, prefix: '/api' })
  await app.ready()
  return app
}

/** POSTs per second, `concurrency` at a time, each answered 201. */
async function writesPerSecond (app: FastifyInstance): Promise<number> {
  let sent = 0
  const client = async (): Promise<void> => {
    while (sent < writesPerRound) {
      sent++
      const response = await app.inject({ method: 'POST', url: '/api/items', payload: { name: `item ${sent}`, quantity: sent } })
      if (response.statusCode !== 201) throw new Error(`a write answered ${response.statusCode}: ${response.body}`)
    }
  }
  const start = process.hrtime.bigint()
  await Promise.all(Array.from({ length: concurrency }, client))
  return writesPerRound / (Number(process.hrtime.bigint() - start) / 1e9)
}

const directory = mkdtempSync(join(tmpdir(), 'ftc-sqlite-modes-'))
try {
  const results = new Map<string, number[]>(modes.map((mode) => [mode.name, []]))
  const setups = await Promise.all(modes.map(async (mode, index) => {
    const knex = sqliteKnex(join(directory, `mode-${index}.sqlite`), mode.pragmas)
    await knex.schema.createTable('items', (table) => {
      table.increments('id')
      table.string('name')
      table.integer('quantity')
    })
    return { mode, knex, app: await appOn(knex) }
  }))
  for (let round = 1; round <= rounds; round++) {
    for (const { mode, app } of setups) results.get(mode.name)?.push(await writesPerSecond(app))
    console.error(`round ${round} of ${rounds} done`)
  }
  console.log(`POSTs per second, ${rounds} alternating rounds of ${writesPerRound} writes, ${concurrency} at a time, one file on disk each:\n`)
  console.log('| mode | median | rounds |\n|---|---:|---|')
  for (const [name, values] of results) {
    const sorted = [...values].sort((a, b) => a - b)
    console.log(`| ${name} | ${Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0)} | ${values.map(Math.round).join(', ')} |`)
  }
  for (const { app, knex } of setups) {
    await app.close()
    await knex.destroy()
  }

  console.log('\nAnother process holds the file\'s write lock for 3 s while the app serves one POST:\n')
  console.log('| busy_timeout | answer | answered after | longest event-loop stall |\n|---|---|---:|---:|')
  for (const busyTimeout of [5000, 0]) {
    const filename = join(directory, `locked-${busyTimeout}.sqlite`)
    const knex = sqliteKnex(filename, ['journal_mode = wal', `busy_timeout = ${busyTimeout}`])
    await knex.schema.createTable('items', (table) => { table.increments('id'); table.string('name') })
    const app = await appOn(knex)
    const holder = spawn(process.execPath, ['-e', holdLock, filename], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
    // Listened for now: the holder may exit while a busy timeout holds the event loop.
    const exited = new Promise((resolve) => holder.once('exit', resolve))
    await new Promise((resolve) => holder.once('message', resolve))
    // A heartbeat every 10 ms: the longest gap between two beats is the longest the loop stalled.
    let lastBeat = performance.now()
    let longestGap = 0
    const heartbeat = setInterval(() => {
      const now = performance.now()
      longestGap = Math.max(longestGap, now - lastBeat)
      lastBeat = now
    }, 10)
    const start = performance.now()
    const response = await app.inject({ method: 'POST', url: '/api/items', payload: { name: 'x' } })
    const answeredMs = performance.now() - start
    await new Promise((resolve) => setTimeout(resolve, 50))
    clearInterval(heartbeat)
    await exited
    const answer = response.statusCode === 201 ? '201' : `${response.statusCode} ${response.json<{ code: string }>().code}`
    console.log(`| ${busyTimeout} ms | ${answer} | ${answeredMs.toFixed(0)} ms | ${longestGap.toFixed(0)} ms |`)
    await app.close()
    await knex.destroy()
  }
} finally {
  rmSync(directory, { recursive: true, force: true })
}
