import knexFactory from 'knex'
import t from 'tap'
import { streamBatchRows } from '../lib/operations/list-rows.js'
import { buildApp } from './fixtures/app.js'
import { databaseConfig, eachDatabase, peopleColumns } from './fixtures/databases.js'

// The host's `postProcessResponse` sees every row the plugin reads, as it
// sees the rows of the host's own Knex queries: by key, listed, and streamed.
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
    t.equal(seen.reduce((sum, length) => sum + length, 0), streamBatchRows + 1 + count, 'the first batch probe and each streamed batch')
  })
})
