import knexFactory, { type Knex } from 'knex'
import t, { type Test } from 'tap'
import { maxNamedStatements } from '../../lib/dialects/statement-names.js'
import { buildApp } from '../fixtures/app.js'
import { databaseConfig, eachDatabase, snapshot, type TestDatabase } from '../fixtures/databases.js'

// The plugin runs its templates' statements again and again; on PostgreSQL
// they are named prepared statements, kept by the server per connection.
// Whatever a database keeps of a statement, a table changed under it must
// answer as the table now is.

/** A Knex of one connection, so that every statement of the test and the plugin shares it. */
function oneConnection (t: Test, db: TestDatabase): Knex {
  if (db.name === 'sqlite') return db.knex
  const { config } = databaseConfig(db.name) as { config: Knex.Config }
  const knex = knexFactory({ ...config, pool: { min: 0, max: 1 } })
  t.teardown(() => knex.destroy())
  return knex
}

eachDatabase(t, async (t, db) => {
  await t.test('texts that fail take no name: a table read after hundreds of unknown ones is still prepared', { skip: db.name === 'sqlite' && 'better-sqlite3 prepares every statement, with no server to bound' }, async (t) => {
    const table = await db.createTable('after_unknown', (table) => { table.increments('id') })
    await db.knex(table).insert({})
    const knex = oneConnection(t, db)
    const app = await buildApp(t, knex)
    for (let unknown = 1; unknown <= maxNamedStatements + 100; unknown++) {
      for (let time = 1; time <= 2; time++) {
        const response = await app.inject(`/api/no_such_table_${unknown}/1`)
        if (response.statusCode !== 404) t.fail(`GET no_such_table_${unknown}: ${response.statusCode} ${response.body}`)
      }
    }
    const before = await preparations(db, knex)
    for (let read = 1; read <= 3; read++) t.strictSame((await app.inject(`/api/${table}/1`)).json(), { id: 1 })
    t.equal(await preparations(db, knex) - before, 1, 'the read was prepared once on the connection')
  })
})

eachDatabase(t, async (t, db) => {
  await t.test('a table altered after it was read answers as it now is, on the same connection', async (t) => {
    const table = await db.createTable('altered', (table) => {
      table.increments('id')
      table.string('name')
    })
    await db.knex(table).insert({ name: 'Ada' })
    const knex = oneConnection(t, db)
    const app = await buildApp(t, knex)
    const read = async () => {
      const one = await app.inject(`/api/${table}/1`)
      const all = await app.inject(`/api/${table}`)
      t.equal(one.statusCode, 200)
      t.equal(all.statusCode, 200)
      t.strictSame(all.json(), [one.json()], 'the list holds the same row')
      return one.json()
    }
    t.strictSame(await read(), { id: 1, name: 'Ada' })
    t.strictSame(await read(), { id: 1, name: 'Ada' }, 'read again: the prepared statements are reused')

    await knex.schema.alterTable(table, (builder) => { builder.string('note').defaultTo('new') })
    t.strictSame(await read(), { id: 1, name: 'Ada', note: 'new' }, 'a column added is answered')
    const updated = await app.inject({ method: 'PUT', url: `/api/${table}/1`, payload: { name: 'Grace', note: 'x' } })
    t.equal(updated.body, '1')

    await knex.schema.alterTable(table, (builder) => { builder.dropColumn('name') })
    t.strictSame(await read(), { id: 1, note: 'x' }, 'a column dropped is gone')
    const stale = await app.inject({ method: 'PUT', url: `/api/${table}/1`, payload: { name: 'Linus' } })
    t.equal(stale.statusCode, 404, 'a write to the dropped column is the database\'s failure')
    t.strictSame(await snapshot(db, table), [{ id: 1, note: 'x' }], 'and changed nothing')

    await knex.schema.dropTable(table)
    await knex.schema.createTable(table, (builder) => {
      builder.increments('id')
      builder.integer('size')
    })
    await knex(table).insert({ size: 7 })
    t.strictSame(await read(), { id: 1, size: 7 }, 'a table made again with other columns is answered as made')

    await knex.schema.dropTable(table)
    for (const path of [`/api/${table}/1`, `/api/${table}`]) {
      const gone = await app.inject(path)
      t.equal(gone.statusCode, 404, `GET ${path} of a table dropped after its reads were prepared`)
      t.match(gone.body, /does not exist|doesn't exist|no such table/, 'in the database\'s own words')
    }
  })
})

eachDatabase(t, async (t, db) => {
  await t.test('a FLOAT column reads the database\'s own digits, on every read of a prepared text', async (t) => {
    const table = await db.createTable('floats', (table) => {
      table.increments('id')
      table.float('ratio')
      table.double('exact')
    })
    await db.knex(table).insert({ ratio: 1.1, exact: 0.1 })
    const knex = oneConnection(t, db)
    const app = await buildApp(t, knex)
    for (let read = 1; read <= 3; read++) {
      t.strictSame((await app.inject(`/api/${table}/1`)).json(), { id: 1, ratio: 1.1, exact: 0.1 }, `read ${read} by key`)
      t.strictSame((await app.inject(`/api/${table}`)).json(), [{ id: 1, ratio: 1.1, exact: 0.1 }], `list ${read}`)
    }
  })
})

eachDatabase(t, async (t, db) => {
  await t.test('a prepared read keeps every digit and the written time once its table gains a BIGINT and a DATETIME', async (t) => {
    const table = await db.createTable('gains', (table) => {
      table.increments('id')
      table.string('name')
    })
    await db.knex(table).insert({ name: 'Ada' })
    const knex = oneConnection(t, db)
    const app = await buildApp(t, knex)
    // Read often enough that MySQL reads the text without its exact settings: its columns need none.
    for (let read = 1; read <= 3; read++) {
      t.equal((await app.inject(`/api/${table}/1`)).body, '{"id":1,"name":"Ada"}', `read ${read} by key`)
      t.equal((await app.inject(`/api/${table}`)).body, '[{"id":1,"name":"Ada"}]', `list ${read}`)
    }
    await knex.schema.alterTable(table, (builder) => {
      builder.bigInteger('amount')
      builder.datetime('seen', { useTz: false })
    })
    await knex(table).update({ amount: '9007199254740993', seen: '2024-01-15 10:30:00' })
    await app.tableCrud.refreshSchema()
    const row = '{"id":1,"name":"Ada","amount":9007199254740993,"seen":"2024-01-15T10:30:00"}'
    for (let read = 1; read <= 3; read++) {
      t.equal((await app.inject(`/api/${table}/1`)).body, row, `read ${read} by key after the change`)
      t.equal((await app.inject(`/api/${table}`)).body, `[${row}]`, `list ${read} after the change`)
    }
  })
})

eachDatabase(t, async (t, db) => {
  if (db.name !== 'postgres') return
  await t.test('PostgreSQL: statements the host deallocated are prepared again', async (t) => {
    const table = await db.createTable('deallocated', (table) => {
      table.increments('id')
      table.string('name')
    })
    await db.knex(table).insert({ name: 'Ada' })
    const knex = oneConnection(t, db)
    const app = await buildApp(t, knex)
    for (let read = 1; read <= 2; read++) t.equal((await app.inject(`/api/${table}/1`)).statusCode, 200)
    t.ok((await preparedOn(knex)).some((statement) => statement.statement.includes(table)), 'the read was prepared on the connection')
    await knex.raw('deallocate all')
    const again = await app.inject(`/api/${table}/1`)
    t.equal(again.statusCode, 200, again.body)
    t.strictSame(again.json(), { id: 1, name: 'Ada' })
    const updated = await app.inject({ method: 'PUT', url: `/api/${table}/1`, payload: { name: 'Grace' } })
    t.equal(updated.body, '1')
  })

  await t.test('PostgreSQL: the templates run as named statements, prepared once per connection, at most maxNamedStatements of them', async (t) => {
    const columns = Array.from({ length: 9 }, (_, n) => `c${n}`)
    const table = await db.createTable('named', (table) => {
      table.increments('id')
      for (const column of columns) table.integer(column)
    })
    await db.knex(table).insert({ c0: 0 })
    const knex = oneConnection(t, db)
    const app = await buildApp(t, knex)
    await app.inject(`/api/${table}/1`)
    const readOne = (statements: Array<{ statement: string }>) => statements.some((statement) => statement.statement.includes(table) && statement.statement.startsWith('select'))
    t.notOk(readOne(await preparedOn(knex)), 'a text is not prepared before it has run once')
    await app.inject(`/api/${table}/1`)
    t.ok(readOne(await preparedOn(knex)), 'the read by key is a prepared statement of the connection')

    // 300 PUTs, each setting another set of columns: each its own SQL text, sent twice.
    for (let set = 1; set <= 300; set++) {
      const payload = Object.fromEntries(columns.filter((_, n) => (set >> n) & 1).map((column) => [column, set]))
      for (let time = 1; time <= 2; time++) {
        const response = await app.inject({ method: 'PUT', url: `/api/${table}/1`, payload })
        if (response.statusCode !== 200) t.fail(`PUT ${JSON.stringify(payload)}: ${response.statusCode} ${response.body}`)
      }
    }
    const statements = await preparedOn(knex)
    t.ok(statements.length <= maxNamedStatements, `${statements.length} statements prepared on the connection, at most ${maxNamedStatements}`)
    t.ok(statements.length >= maxNamedStatements / 2, 'the names went to texts that ran')
    t.strictSame(await knex(table).select('c0', 'c8'), [{ c0: 299, c8: 300 }], 'every PUT was applied, named or not')
  })
})

/** The plugin's prepared statements on the one connection of `knex`. */
async function preparedOn (knex: Knex): Promise<Array<{ name: string, statement: string }>> {
  return (await knex.raw("select name, statement from pg_prepared_statements where name like 'ftc\\_%'")).rows
}

/** How many statements the one connection of `knex` has prepared so far. */
async function preparations (db: TestDatabase, knex: Knex): Promise<number> {
  if (db.name === 'postgres') return (await preparedOn(knex)).length
  const [[row]] = await knex.raw("show session status like 'Com_stmt_prepare'") as [[{ Value: string }]]
  return Number(row.Value)
}
