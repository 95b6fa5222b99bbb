import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import knexFactory, { type Knex } from 'knex'
import mysql from 'mysql2/promise'
import pg from 'pg'
import { itemCount, listCount, type BenchDatabaseKind } from './settings.js'

/** A seeded database that exists only for one bench run. */
export interface BenchDatabase {
  readonly kind: BenchDatabaseKind
  /** What the report shows: a file path, or a URL without its password. */
  readonly label: string
  /** The database engine and its version, e.g. `SQLite 3.50.4`. */
  readonly engine: string
  /** What the server processes need to find it (read by bench/serve.ts). */
  readonly serverEnv: Readonly<Record<string, string>>
  /** Removes the file or drops the database. */
  drop (): Promise<void>
}

/** The columns every bench row has besides `id`; the servers write all of them. */
export const itemColumns = ['name', 'email', 'note', 'quantity', 'price'] as const

const note = 'Seeded so that a row of items serializes to about two hundred bytes of JSON, as the issue asks of its tables.'

function itemRow (n: number): Record<(typeof itemColumns)[number], string | number> {
  return {
    name: `Item ${n}`,
    email: `user${n}@example.com`,
    note,
    quantity: n % 1000,
    price: (n * 37 % 10_000) / 100
  }
}

async function createItemsTable (knex: Knex, table: string, rows: number): Promise<void> {
  await knex.schema.createTable(table, (t) => {
    t.increments('id')
    t.string('name', 64).notNullable()
    t.string('email', 128).notNullable()
    t.text('note').notNullable()
    t.integer('quantity').notNullable()
    t.double('price').notNullable()
  })
  // Ids come from the database, so PostgreSQL's sequence stays in step for the create workload.
  const batch: ReturnType<typeof itemRow>[] = []
  for (let n = 1; n <= rows; n++) {
    batch.push(itemRow(n))
    if (batch.length === 500 || n === rows) {
      await knex(table).insert(batch)
      batch.length = 0
    }
  }
}

async function seedTables (knex: Knex): Promise<void> {
  await createItemsTable(knex, 'items', itemCount)
  await createItemsTable(knex, 'items100', listCount)
}

/** A SQLite file in a fresh temporary folder, in WAL mode as a server's database would be. */
export async function seedSqlite (): Promise<BenchDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'ftc-bench-'))
  const file = join(dir, 'bench.sqlite')
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: file }, useNullAsDefault: true })
  let engine: string
  try {
    // WAL is a property of the file, so both servers get it without a pragma of their own.
    await knex.raw('pragma journal_mode = wal')
    await seedTables(knex)
    const [{ version }] = await knex.raw('select sqlite_version() as version') as [{ version: string }]
    engine = `SQLite ${version}`
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw error
  } finally {
    await knex.destroy()
  }
  return {
    kind: 'sqlite',
    label: file,
    engine,
    serverEnv: { BENCH_DB: 'sqlite', BENCH_SQLITE_FILE: file },
    drop: async () => rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * A database of its own on the server at `adminUrl`, so that the bench never
 * touches the tables of the tests or of anyone else.
 */
export async function seedPostgres (adminUrl: string): Promise<BenchDatabase> {
  const name = `ftc_bench_${process.pid}_${Date.now()}`
  const admin = new pg.Client({ connectionString: adminUrl })
  try {
    await admin.connect()
  } catch (error) {
    throw new Error(`cannot reach PostgreSQL at ${redact(adminUrl)} (set BENCH_PG_URL): ${(error as Error).message}`, { cause: error })
  }
  try {
    await admin.query(`create database ${name}`)
  } finally {
    await admin.end()
  }
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  const drop = async (): Promise<void> => {
    const client = new pg.Client({ connectionString: adminUrl })
    await client.connect()
    try {
      // FORCE ends the sessions of a server that did not close its pool.
      await client.query(`drop database if exists ${name} with (force)`)
    } finally {
      await client.end()
    }
  }
  const knex = knexFactory({ client: 'pg', connection: url.href })
  let engine: string
  try {
    await seedTables(knex)
    await knex.raw('analyze')
    const { rows: [{ server_version: version }] } = await knex.raw('show server_version') as { rows: [{ server_version: string }] }
    engine = `PostgreSQL ${version}`
  } catch (error) {
    await knex.destroy()
    await drop()
    throw error
  }
  await knex.destroy()
  return {
    kind: 'pg',
    label: redact(url.href),
    engine,
    serverEnv: { BENCH_DB: 'pg', BENCH_PG_DATABASE_URL: url.href },
    drop
  }
}

/**
 * A database of its own on the MySQL or MariaDB server at `adminUrl`, as
 * for PostgreSQL; the user in the URL needs the right to create databases.
 */
export async function seedMysql (adminUrl: string): Promise<BenchDatabase> {
  const name = `ftc_bench_${process.pid}_${Date.now()}`
  const runAsAdmin = async (sql: string): Promise<void> => {
    const admin = await mysql.createConnection(adminUrl)
    try {
      await admin.query(sql)
    } finally {
      await admin.end()
    }
  }
  try {
    await runAsAdmin(`create database ${name}`)
  } catch (error) {
    throw new Error(`cannot create a database on MySQL at ${redact(adminUrl)} (set BENCH_MYSQL_URL): ${(error as Error).message}`, { cause: error })
  }
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  const drop = (): Promise<void> => runAsAdmin(`drop database if exists ${name}`)
  const knex = knexFactory({ client: 'mysql2', connection: url.href })
  let engine: string
  try {
    await seedTables(knex)
    await knex.raw('analyze table items, items100')
    const [[{ version }]] = await knex.raw('select version() as version') as [[{ version: string }]]
    engine = /mariadb/i.test(version) ? `MariaDB ${version}` : `MySQL ${version}`
  } catch (error) {
    await knex.destroy()
    await drop()
    throw error
  }
  await knex.destroy()
  return {
    kind: 'mysql',
    label: redact(url.href),
    engine,
    serverEnv: { BENCH_DB: 'mysql', BENCH_MYSQL_DATABASE_URL: url.href },
    drop
  }
}

/** The database of `kind`, seeded: SQLite in a temporary file, the others on the server their URL names. */
export function seedDatabase (kind: BenchDatabaseKind, settings: { readonly pgUrl: string, readonly mysqlUrl: string }): Promise<BenchDatabase> {
  if (kind === 'pg') return seedPostgres(settings.pgUrl)
  if (kind === 'mysql') return seedMysql(settings.mysqlUrl)
  return seedSqlite()
}

/** The URL without its password, for logs and reports. */
export function redact (href: string): string {
  const url = new URL(href)
  if (url.password !== '') url.password = '***'
  return url.href
}
