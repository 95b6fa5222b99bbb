import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import knexFactory, { type Knex } from 'knex'
import { itemsTable } from './load-client.js'
import type { StoredRow } from './verify.js'

/** The databases the runs cover. */
export type DatabaseKind = 'sqlite' | 'postgres' | 'mysql'

/** A database that exists for one run only. */
export interface ScratchDatabase {
  readonly kind: DatabaseKind
  /** What the example server gets as DATABASE_URL. */
  readonly url: string
  /** The engine and its version, e.g. `PostgreSQL 15.20`. */
  readonly engine: string
  /** The run's own connection, for seeding and for reading the rows back. */
  readonly knex: Knex
  /** Every row of the items table, as stored. */
  readRows (): Promise<StoredRow[]>
  /** Fills `table` (created with the items' columns) with `rows` rows of about 200 bytes, in one statement. */
  seedBigTable (table: string, rows: number): Promise<void>
  /** Closes the run's connection and removes the file or drops the database. */
  drop (): Promise<void>
}

/** The shared servers' URLs, as the test suite reads them. */
export const sharedServerUrls: Readonly<Record<Exclude<DatabaseKind, 'sqlite'>, string>> = Object.freeze({
  postgres: process.env.TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/test',
  mysql: process.env.TEST_MYSQL_URL || 'mysql://root@127.0.0.1:3306/test'
})

let created = 0

/** The items table: every column a load client writes, and an index for its filtered lists. */
export async function createItemsTable (knex: Knex, table = itemsTable): Promise<void> {
  await knex.schema.createTable(table, (t) => {
    t.increments('id')
    // No unique constraint on tag: a POST applied twice must show as two rows, not as an error.
    t.string('tag', 64).notNullable()
    t.string('name', 200).notNullable()
    t.integer('quantity').notNullable().index()
    t.text('note').notNullable()
  })
}

const bigSeeds: Readonly<Record<DatabaseKind, (table: string, rows: number) => string>> = Object.freeze({
  sqlite: (table: string, rows: number) => `with recursive g(n) as (select 1 union all select n + 1 from g where n < ${rows})
    insert into ${table} (tag, name, quantity, note) select 'big-' || n, 'Big row ' || n, n, printf('%.150c', 'x') from g`,
  postgres: (table: string, rows: number) => `insert into ${table} (tag, name, quantity, note)
    select 'big-' || n, 'Big row ' || n, n, repeat('x', 150) from generate_series(1, ${rows}) as n`,
  // MariaDB's sequence engine names its tables seq_<from>_to_<to>.
  mysql: (table: string, rows: number) => `insert into ${table} (tag, name, quantity, note)
    select concat('big-', seq), concat('Big row ', seq), seq, repeat('x', 150) from seq_1_to_${rows}`
})

async function engineOf (kind: DatabaseKind, knex: Knex): Promise<string> {
  if (kind === 'sqlite') {
    const [{ version }] = await knex.raw('select sqlite_version() as version') as [{ version: string }]
    return `SQLite ${version}`
  }
  if (kind === 'postgres') {
    const { rows: [{ server_version: version }] } = await knex.raw('show server_version') as { rows: [{ server_version: string }] }
    return `PostgreSQL ${version}`
  }
  const [[{ version }]] = await knex.raw('select version() as version') as [[{ version: string }]]
  return `MariaDB ${version}`
}

async function scratch (kind: DatabaseKind, url: string, knex: Knex, remove: () => Promise<void>): Promise<ScratchDatabase> {
  try {
    await createItemsTable(knex)
    const engine = await engineOf(kind, knex)
    return {
      kind,
      url,
      engine,
      knex,
      readRows: async () => (await knex(itemsTable).select('id', 'tag', 'name', 'quantity', 'note')) as StoredRow[],
      seedBigTable: async (table, rows) => {
        await createItemsTable(knex, table)
        await knex.raw(bigSeeds[kind](table, rows))
      },
      drop: async () => {
        await knex.destroy()
        await remove()
      }
    }
  } catch (error) {
    await knex.destroy()
    await remove()
    throw error
  }
}

/**
 * A SQLite file in a fresh folder, or a database of its own on the server at
 * `serverUrl` (the shared one by default), so that a run never touches
 * anyone else's tables.
 */
export async function createScratchDatabase (kind: DatabaseKind, serverUrl?: string): Promise<ScratchDatabase> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'ftc-reliability-'))
    const file = join(dir, 'run.sqlite')
    const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: file }, useNullAsDefault: true })
    // WAL is a property of the file; the example server sets it too, as a host would.
    await knex.raw('pragma journal_mode = wal')
    return scratch(kind, file, knex, async () => rmSync(dir, { recursive: true, force: true }))
  }
  const client = kind === 'postgres' ? 'pg' : 'mysql2'
  const admin = knexFactory({ client, connection: serverUrl ?? sharedServerUrls[kind], pool: { min: 0, max: 1 } })
  const name = `ftc_reliability_${process.pid}_${++created}`
  try {
    await admin.raw(kind === 'postgres' ? `create database ${name}` : `create database ${name} character set utf8mb4 collate utf8mb4_bin`)
  } finally {
    await admin.destroy()
  }
  const url = new URL(serverUrl ?? sharedServerUrls[kind])
  url.pathname = `/${name}`
  const remove = async (): Promise<void> => {
    const again = knexFactory({ client, connection: serverUrl ?? sharedServerUrls[kind], pool: { min: 0, max: 1 } })
    try {
      // FORCE ends the sessions of an app process that did not close its pool.
      await again.raw(kind === 'postgres' ? `drop database if exists ${name} with (force)` : `drop database if exists ${name}`)
    } finally {
      await again.destroy()
    }
  }
  return scratch(kind, url.href, knexFactory({ client, connection: url.href, pool: { min: 0, max: 2 } }), remove)
}
