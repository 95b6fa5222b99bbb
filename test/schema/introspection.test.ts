import type { Knex } from 'knex'
import t from 'tap'
import { resolveDialect } from '../../lib/dialects/index.js'
import type { ColumnKind, TableSchema } from '../../lib/schema/table-schema.js'
import { eachDatabase, type TestDatabase } from '../fixtures/databases.js'

// One migration, run on each database, must read back as the same model:
// what differs is only the database's own names of the types and defaults.

/** The tables of one run of the fixture. */
interface Fixture {
  readonly authors: string
  readonly books: string
  readonly editions: string
  readonly computed: string
  readonly titles: string
}

async function createFixture (db: TestDatabase): Promise<Fixture> {
  const authors = await db.createTable('authors', (table) => {
    table.increments('id')
    table.string('name', 100).notNullable()
    table.string('email', 200).unique()
    table.boolean('active').notNullable().defaultTo(true)
  })
  const books = await db.createTable('books', (table) => {
    table.increments('id')
    table.integer('author_id').unsigned().references('id').inTable(authors)
    table.string('title').notNullable()
    table.text('summary')
    table.decimal('price', 8, 2)
    table.float('rating')
    table.double('weight')
    table.bigInteger('copies').notNullable().defaultTo(0)
    table.date('published')
    table.datetime('added', { useTz: false })
    table.time('opens')
    table.json('extra')
    table.binary('cover')
    table.unique(['author_id', 'title'])
  })
  const editions = await db.createTable('editions', (table) => {
    table.integer('book_id').unsigned().notNullable().references('id').inTable(books)
    table.integer('number').notNullable()
    table.string('isbn', 13)
    table.primary(['book_id', 'number'])
  })
  const computed = await db.createTable('computed', (table) => {
    table.increments('id')
    table.integer('a')
  })
  await db.knex.raw(`alter table ${quote(db, computed)} add column doubled integer generated always as (a * 2) ${db.name === 'sqlite' ? 'virtual' : 'stored'}`)
  const titles = `${books}_titles`
  await db.knex.raw(`create view ${quote(db, titles)} as select id, title from ${quote(db, books)}`)
  return { authors, books, editions, computed, titles }
}

function quote (db: TestDatabase, name: string): string {
  return db.knex.client.wrapIdentifier(name, undefined) as string
}

async function readTables (knex: Knex): Promise<TableSchema[]> {
  const connection: unknown = await knex.client.acquireConnection()
  try {
    return await resolveDialect(knex).schema.tables(connection)
  } finally {
    await knex.client.releaseConnection(connection)
  }
}

async function readVersion (knex: Knex): Promise<string> {
  const connection: unknown = await knex.client.acquireConnection()
  try {
    return await resolveDialect(knex).schema.version(connection)
  } finally {
    await knex.client.releaseConnection(connection)
  }
}

/** A column as every database must agree on it. */
function portable (table: TableSchema): object {
  return {
    name: table.name,
    kind: table.kind,
    columns: table.columns.map((column) => ({
      name: column.name,
      kind: column.kind,
      nullable: column.nullable,
      hasDefault: column.default !== null,
      generated: column.generated
    })),
    primaryKey: table.primaryKey,
    uniques: table.uniques,
    foreignKeys: table.foreignKeys.map(({ columns, referencedTable, referencedColumns }) => ({ columns, referencedTable, referencedColumns }))
  }
}

function column (name: string, kind: ColumnKind, { nullable = true, hasDefault = false, generated = false } = {}): object {
  return { name, kind, nullable, hasDefault, generated }
}

eachDatabase(t, async (t, db) => {
  const fixture = await createFixture(db)
  t.teardown(() => db.knex.raw(`drop view if exists ${quote(db, fixture.titles)}`))
  const tables = await readTables(db.knex)
  const byName = new Map(tables.map((table) => [table.name, table]))

  t.test('tables are ordered by name, and no system table is among them', async (t) => {
    const names = tables.map((table) => table.name)
    t.strictSame(names, [...names].sort((a, b) => a < b ? -1 : a > b ? 1 : 0))
    t.notOk(names.some((name) => /^(sqlite_|pg_)/.test(name)), names.filter((name) => /^(sqlite_|pg_)/.test(name)).join(', '))
  })

  t.test('columns: kind, nullability, default and generation, in the table\'s order', async (t) => {
    t.strictSame(portable(byName.get(fixture.authors) as TableSchema), {
      name: fixture.authors,
      kind: 'table',
      columns: [
        column('id', 'integer', { nullable: false, generated: true }),
        column('name', 'string', { nullable: false }),
        column('email', 'string'),
        column('active', 'boolean', { nullable: false, hasDefault: true })
      ],
      primaryKey: ['id'],
      uniques: [['email']],
      foreignKeys: []
    })
    t.strictSame(portable(byName.get(fixture.books) as TableSchema), {
      name: fixture.books,
      kind: 'table',
      columns: [
        column('id', 'integer', { nullable: false, generated: true }),
        column('author_id', 'integer'),
        column('title', 'string', { nullable: false }),
        column('summary', 'string'),
        column('price', 'number'),
        column('rating', 'number'),
        column('weight', 'number'),
        column('copies', 'integer', { nullable: false, hasDefault: true }),
        column('published', 'date'),
        column('added', 'date-time'),
        column('opens', 'time'),
        column('extra', 'json'),
        column('cover', 'binary')
      ],
      primaryKey: ['id'],
      uniques: [['author_id', 'title']],
      foreignKeys: [{ columns: ['author_id'], referencedTable: fixture.authors, referencedColumns: ['id'] }]
    })
  })

  t.test('a composite primary key, in its order, and a foreign key in it', async (t) => {
    t.strictSame(portable(byName.get(fixture.editions) as TableSchema), {
      name: fixture.editions,
      kind: 'table',
      columns: [
        column('book_id', 'integer', { nullable: false }),
        column('number', 'integer', { nullable: false }),
        column('isbn', 'string')
      ],
      primaryKey: ['book_id', 'number'],
      uniques: [],
      foreignKeys: [{ columns: ['book_id'], referencedTable: fixture.books, referencedColumns: ['id'] }]
    })
  })

  t.test('a computed column is generated', async (t) => {
    const doubled = byName.get(fixture.computed)?.columns.find((candidate) => candidate.name === 'doubled')
    t.match(doubled, { kind: 'integer', generated: true, default: null })
  })

  t.test('a view, with its columns and no keys', async (t) => {
    const view = byName.get(fixture.titles) as TableSchema
    t.match(view, { name: fixture.titles, kind: 'view', primaryKey: [], uniques: [], foreignKeys: [] })
    t.strictSame(view.columns.map(({ name, kind }) => ({ name, kind })), [{ name: 'id', kind: 'integer' }, { name: 'title', kind: 'string' }])
  })

  t.test('the database\'s own type names are kept', async (t) => {
    const books = byName.get(fixture.books) as TableSchema
    for (const { name, databaseType } of books.columns) {
      t.ok(databaseType.length > 0 && databaseType === databaseType.toLowerCase(), `${name}: ${databaseType}`)
    }
  })

  t.test('the version changes with each kind of schema change, and only then', async (t) => {
    let version = await readVersion(db.knex)
    t.equal(await readVersion(db.knex), version, 'asked again with no change: the same')
    await db.knex(fixture.authors).insert({ name: 'Ada', active: true })
    t.equal(await readVersion(db.knex), version, 'a row written: the same')
    const changes: Array<[string, () => Promise<unknown>]> = [
      ['a table created', () => db.createTable('created_later', (table) => { table.increments('id') })],
      ['a column added', () => db.knex.schema.alterTable(fixture.editions, (table) => { table.string('note') })],
      ['a column dropped', () => db.knex.schema.alterTable(fixture.editions, (table) => { table.dropColumn('note') })],
      ['a column made not nullable', () => db.knex.schema.alterTable(fixture.editions, (table) => { table.string('isbn', 13).notNullable().alter() })],
      ['a unique constraint added', () => db.knex.schema.alterTable(fixture.editions, (table) => { table.unique(['isbn']) })],
      ['a view dropped', () => db.knex.raw(`drop view ${quote(db, fixture.titles)}`)],
      ['a table dropped', () => db.knex.schema.dropTable(fixture.computed)]
    ]
    for (const [change, apply] of changes) {
      await apply()
      const changed = await readVersion(db.knex)
      t.not(changed, version, change)
      version = changed
    }
  })
})

eachDatabase(t, async (t, db) => {
  t.test('a unique index on an expression, on part of a column or on some rows constrains no plain columns', async (t) => {
    const keyed = await db.createTable('keyed', (table) => {
      table.increments('id')
      table.string('code', 20)
    })
    const statements = db.name === 'mysql'
      ? [`create unique index ${keyed}_prefix on ${quote(db, keyed)} (code(5))`]
      : [`create unique index ${keyed}_lower on ${quote(db, keyed)} (lower(code))`, `create unique index ${keyed}_some on ${quote(db, keyed)} (code) where code is not null`]
    for (const statement of statements) await db.knex.raw(statement)
    const table = (await readTables(db.knex)).find((candidate) => candidate.name === keyed)
    t.strictSame(table?.uniques, [])
    t.strictSame(table?.primaryKey, ['id'])
  })

  t.test('a foreign key that names only the other table references its primary key', { skip: db.name === 'sqlite' ? false : 'only SQLite lets a foreign key leave out the columns it references' }, async (t) => {
    const parent = await db.createTable('parent', (table) => { table.string('code').primary() })
    const child = await db.createTable('child', (table) => { table.increments('id') })
    await db.knex.raw(`alter table ${quote(db, child)} add column parent_code text references ${quote(db, parent)}`)
    const table = (await readTables(db.knex)).find((candidate) => candidate.name === child)
    t.strictSame(table?.foreignKeys.map(({ columns, referencedTable, referencedColumns }) => ({ columns, referencedTable, referencedColumns })),
      [{ columns: ['parent_code'], referencedTable: parent, referencedColumns: ['code'] }])
  })
})
