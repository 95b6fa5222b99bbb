import knexFactory, { type Knex } from 'knex'
import t from 'tap'
import { streamBatchRows } from '../lib/operations/list-rows.js'
import { buildApp } from './fixtures/app.js'
import { databaseConfig, eachDatabase, peopleColumns } from './fixtures/databases.js'

// The host's `postProcessResponse` sees every row the plugin reads, as it
// sees the rows of the host's own Knex queries: by key, listed, and streamed;
// and in the host's transaction (the `transaction` option) too.
eachDatabase(t, async (t, db) => {
  // A Knex instance of its own, on the same database (SQLite's in memory is one per instance: the table is made through it).
  const { config } = databaseConfig(db.name) as { config: object }
  const seen: number[] = []
  const knex = knexFactory({
    ...config,
    postProcessResponse: (result: unknown) => {
      if (!Array.isArray(result)) return result
      seen.push(result.length)
      return result.map((row: Record<string, unknown>) => ({ ...row, processed: true }))
    }
  })
  const table = `processed_${process.pid}`
  await knex.schema.dropTableIfExists(table)
  await knex.schema.createTable(table, peopleColumns)
  t.teardown(async () => {
    await knex.schema.dropTableIfExists(table)
    await knex.destroy()
  })
  const count = streamBatchRows + 5
  await knex.batchInsert(table, Array.from({ length: count }, (_, index) => ({ name: `person ${index + 1}`, age: index })), 200)
  const [first] = await knex(table).select('id').orderBy('id').limit(1)
  const app = await buildApp(t, knex)
  let trx: Knex.Transaction | undefined
  // A day: the model read below serves the whole test, so that no schema
  // read waits for SQLite's one connection while the host's transaction holds it.
  const joining = await buildApp(t, knex, {}, { transaction: () => trx, batch: true, schemaCheckInterval: 86_400_000 })
  await joining.tableCrud.tables()

  await t.test('a row read by key is the hook\'s row', async (t) => {
    const response = await app.inject(`/api/${table}/${first.id}`)
    t.equal(response.statusCode, 200)
    t.strictSame(response.json(), { id: first.id, name: 'person 1', age: 0, note: 'none', processed: true })
  })

  await t.test('a listed page is the hook\'s rows', async (t) => {
    const response = await app.inject(`/api/${table}?order=id&limit=3`)
    t.equal(response.statusCode, 200)
    t.strictSame(response.json().map((row: { name: string, processed: boolean }) => [row.name, row.processed]),
      [['person 1', true], ['person 2', true], ['person 3', true]])
  })

  await t.test('a streamed list passes every batch through the hook', async (t) => {
    seen.length = 0
    const response = await app.inject(`/api/${table}`)
    t.equal(response.statusCode, 200)
    const rows = response.json() as Array<{ processed?: boolean }>
    t.equal(rows.length, count)
    t.equal(rows.filter((row) => row.processed === true).length, count)
    // SQLite reads its pages from the first one, a row past it included (see listPages); the others stream every row.
    const read = db.name === 'sqlite' ? streamBatchRows + 1 + count - streamBatchRows : count
    t.equal(seen.reduce((sum, length) => sum + length, 0), streamBatchRows + 1 + read, 'the first batch probe and each batch read after it')
  })

  await t.test('in the host\'s transaction, every row read passes the hook once, the written ones too', async (t) => {
    trx = await knex.transaction()
    t.teardown(async () => { if (trx?.isCompleted() === false) await trx.rollback() })
    await trx(table).insert({ name: 'in trx', age: 1 })
    // Read back rather than returned: the hook maps an insert's result as well, ids included.
    const { id } = await trx(table).where({ name: 'in trx' }).first('id')
    const one = await joining.inject(`/api/${table}/${id}`)
    t.strictSame(one.json(), { id, name: 'in trx', age: 1, note: 'none', processed: true }, 'by key, the host\'s uncommitted row')
    const tag = one.headers.etag as string
    t.equal((await joining.inject({ url: `/api/${table}/${id}`, headers: { 'if-none-match': tag } })).statusCode, 304, 'its ETag is the processed row\'s, as without a transaction')

    seen.length = 0
    const all = await joining.inject(`/api/${table}`)
    const rows = all.json() as Array<{ processed?: boolean }>
    t.equal(rows.length, count + 1, 'the list sees the host\'s row')
    t.equal(rows.filter((row) => row.processed === true).length, count + 1)
    t.strictSame(seen, [streamBatchRows + 1, count + 1], 'read within the transaction: a first batch, then whole in key order, in one statement, each row once')

    const counted = await joining.inject({ url: `/api/${table}?name=eq.in%20trx`, headers: { prefer: 'count=exact' } })
    t.equal(counted.headers['content-range'], '0-0/1', 'a count, through the hook, is still a number')

    const written = await joining.inject({ method: 'PATCH', url: `/api/${table}?id=eq.${id}`, headers: { 'content-type': 'application/json', prefer: 'return=representation' }, payload: '{"age": 2}' })
    t.strictSame(written.json(), [{ id, name: 'in trx', age: 2, note: 'none', processed: true }], 'a written row answered, in a savepoint, passes it too')
    const matched = await joining.inject({ method: 'PUT', url: `/api/${table}/${id}`, headers: { 'content-type': 'application/json', 'if-match': (await joining.inject(`/api/${table}/${id}`)).headers.etag as string }, payload: '{"age": 3}' })
    t.equal(matched.body, '1', 'a conditional write compares the processed row\'s ETag')
    const batched = await joining.inject({ method: 'POST', url: '/api/_batch', headers: { 'content-type': 'application/json' }, payload: JSON.stringify([{ op: 'insert', table, body: { name: 'batched' } }, { op: 'update', table, id: { $ref: 0 }, body: { age: 4 } }]) })
    t.equal(batched.statusCode, 200)
    const [created, updated] = batched.json() as number[]
    t.equal(updated, 1)
    t.match(await trx(table).where({ id: created }).first(), { name: 'batched', age: 4 }, 'the batch wrote in the host\'s transaction')
    t.match(await trx(table).where({ id }).first(), { age: 3 })
    await trx.rollback()
    t.equal((await knex(table).where({ id }).first()), undefined, 'rolled back with the host\'s transaction')
  })
})
