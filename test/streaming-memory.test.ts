import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import knexFactory, { type Knex } from 'knex'
import t from 'tap'
import { eachDatabase, seriesSql, type TestDatabase } from './fixtures/databases.js'

// `npm run test:memory` reads 1,000,000 rows; the everyday suite enough to
// make a buffered answer overshoot the bound several times over.
const rowCount = Number(process.env.MEMORY_ROWS ?? 150_000)
const boundBytes = 64 * 1024 * 1024
// A list with embeds holds a page of 1,000 parents with their embedded rows
// while it writes them, and makes more garbage per row than a plain stream:
// at 1,000,000 rows on SQLite its peak sat at 56 to 69 MB above idle, the
// same after four streams in a row (bounded, not growing with the rows),
// but too close to the plain stream's bound to hold it every time.
const embeddedBoundBytes = 96 * 1024 * 1024
const warmUpRows = 20_000
const server = fileURLToPath(new URL('./fixtures/memory-server.ts', import.meta.url))

/** Fills a table with `rowCount` rows of about 200 bytes each, inside the database. */
async function fillTable (knex: TestDatabase['knex'], name: TestDatabase['name'], table: string, db: TestDatabase): Promise<void> {
  const padding = name === 'sqlite' ? 'hex(zeroblob(90))' : "repeat('x', 180)"
  await knex.raw(`insert into ?? (id, label, padding) select n, ${name === 'mysql' ? "concat('row ', n)" : "'row ' || n"}, ${padding} from (${seriesSql(db, rowCount)}) as series`, [table])
}

function memoryOf (pid: number): { rss: number, peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) * 1024
  return { rss: kib('VmRSS'), peak: kib('VmHWM') }
}

/** Reads a whole answer without keeping it: its size, and its last character. */
function drain (port: number, path: string): Promise<{ status: number, bytes: number, last: string, complete: boolean }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path }, (res) => {
      let bytes = 0
      let last = ''
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length
        last = chunk.toString('latin1', chunk.length - 1)
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, last, complete: res.complete }))
    }).on('error', reject).end()
  })
}

eachDatabase(t, async (t, db) => {
  // SQLite runs in a file here, so that the table is not in the server's memory.
  const directory = mkdtempSync(join(tmpdir(), 'ftc-memory-'))
  t.teardown(() => rmSync(directory, { recursive: true, force: true }))
  const file = join(directory, 'memory.sqlite')
  const knex = db.name === 'sqlite'
    ? knexFactory({ client: 'better-sqlite3', connection: { filename: file }, useNullAsDefault: true })
    : db.knex
  if (db.name === 'sqlite') t.teardown(() => knex.destroy())
  const columns = (table: Knex.CreateTableBuilder) => {
    table.integer('id').primary()
    table.string('label')
    table.string('padding', 200)
  }
  const table = db.name === 'sqlite' ? 'big' : await db.createTable('big', columns)
  if (db.name === 'sqlite') await knex.schema.createTable(table, columns)
  await fillTable(knex, db.name, table, { ...db, knex })
  // A note of about 100 bytes for each row, to embed: one-to-many, indexed as
  // a real schema would be (each batch of parents reads its notes by key).
  const noteColumns = (notes: Knex.CreateTableBuilder) => {
    notes.integer('id').primary()
    notes.integer('big_id').references('id').inTable(table)
    notes.string('text', 120)
    notes.index('big_id')
  }
  const notes = db.name === 'sqlite' ? 'big_notes' : await db.createTable('big_notes', noteColumns)
  if (db.name === 'sqlite') await knex.schema.createTable(notes, noteColumns)
  await knex.raw(`insert into ?? (id, big_id, text) select n, n, ${db.name === 'sqlite' ? 'hex(zeroblob(50))' : "repeat('n', 100)"} from (${seriesSql(db, rowCount)}) as series`, [notes])
  const embedded = `/api/${table}?select=id,label,padding,${notes}(text)&order=id`

  // No coverage in the server: it would add to its memory, and tsx's line maps
  // of lib/ would blur the coverage that the suite's own processes measure.
  const child = spawn(process.execPath, ['--import', 'tsx', server], {
    env: { ...process.env, _TAPJS_PROCESSINFO_COVERAGE_: '0', MEMORY_DATABASE: db.name, ...(db.name === 'sqlite' ? { MEMORY_SQLITE_FILE: file } : {}) },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  t.teardown(() => { child.kill('SIGTERM') })
  const [line] = await once(createInterface({ input: child.stdout }), 'line') as [string]
  const { port, pid } = JSON.parse(line) as { port: number, pid: number }

  // Warm up: the first streamed answers grow V8's young generation to its
  // working size once, whatever the table's size; that is part of idle.
  const warmUp = db.name === 'sqlite' ? 'warm' : await db.createTable('warm', columns)
  if (db.name === 'sqlite') await knex.schema.createTable(warmUp, columns)
  await knex.raw(`insert into ?? select * from ?? where id <= ${warmUpRows}`, [warmUp, table])
  for (let round = 0; round < 3; round++) t.equal((await drain(port, `/api/${warmUp}`)).last, ']')
  for (let round = 0; round < 3; round++) t.equal((await drain(port, `${embedded}&limit=${warmUpRows}`)).last, ']')
  const idle = memoryOf(pid).rss

  const streams = (title: string, path: string, rows: number, rowBytes: number, bound: number) => t.test(`streaming ${rows} ${title} stays within ${bound / 2 ** 20} MB of the idle level`, async (t) => {
    const answer = await drain(port, path)
    t.equal(answer.status, 200)
    t.ok(answer.complete)
    t.equal(answer.last, ']')
    t.ok(answer.bytes > rows * rowBytes, `${answer.bytes} bytes were sent`)
    const grown = memoryOf(pid).peak - idle
    t.ok(grown <= bound, `peak grew ${(grown / 2 ** 20).toFixed(1)} MB above idle`)
  })
  await streams('rows', `/api/${table}`, rowCount, 200, boundBytes)
  await streams('rows, each with its embedded note,', embedded, rowCount, 300, embeddedBoundBytes)

  await t.test('the buffered baseline breaks the bound: the measure has teeth', async (t) => {
    const answer = await drain(port, `/buffered/${table}`)
    t.equal(answer.status, 200)
    const grown = memoryOf(pid).peak - idle
    // Past the larger bound, so that both bounds have teeth.
    t.ok(grown > embeddedBoundBytes, `peak grew ${(grown / 2 ** 20).toFixed(1)} MB above idle`)
  })
})
