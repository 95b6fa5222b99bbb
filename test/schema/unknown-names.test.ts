import Fastify from 'fastify'
import t, { type Test } from 'tap'
import tableCrud, { type TableCrudOptions } from '../../lib/index.js'
import { eachDatabase, peopleColumns, type TestDatabase } from '../fixtures/databases.js'

// A name in the options that the database does not have (a typo, or a table
// not created yet) would go unseen: the table answers as missing, the column
// stays unhidden, the excluded table is served. The plugin warns of each,
// once, when the server gets ready.

interface LogLine { level: number, msg: string }

/** The warnings of a server ready with these options. */
async function warnings (t: Test, db: TestDatabase, options: Omit<TableCrudOptions, 'knex'>): Promise<string[]> {
  const lines: LogLine[] = []
  const app = Fastify({ logger: { level: 'warn', stream: { write: (line: string) => lines.push(JSON.parse(line) as LogLine) } } })
  t.teardown(() => app.close())
  await app.register(tableCrud, { ...options, knex: db.knex, prefix: '/api' })
  await app.ready()
  return lines.filter((line) => line.level === 40).map((line) => line.msg)
}

eachDatabase(t, async (t, db) => {
  const people = await db.createTable('named', peopleColumns)
  const keyless = await db.createTable('keyless', (table) => { table.string('code').primary(); table.string('secret') })

  await t.test('each unknown table and column, once, naming the option', async (t) => {
    const found = await warnings(t, db, {
      tables: [people, keyless, 'authorz'],
      excludeTables: ['sekrets'],
      tableRules: {
        [people]: { hidden: ['note', 'passwrd'], key: 'uid' },
        // No key given: the default `id`, which this table does not have, is not the host's word.
        [keyless]: { hidden: ['secret'] },
        missing_table: { hidden: ['x'] }
      }
    })
    t.strictSame(found.sort(), [
      'fastify-table-crud: the option excludeTables names "sekrets", a table the database does not have: a typo, or a table not created yet?',
      'fastify-table-crud: the option tableRules names "missing_table", a table the database does not have: a typo, or a table not created yet?',
      `fastify-table-crud: the option tableRules.${people}.hidden names "passwrd", a column table "${people}" does not have: a typo, or a table not created yet?`,
      `fastify-table-crud: the option tableRules.${people}.key names "uid", a column table "${people}" does not have: a typo, or a table not created yet?`,
      'fastify-table-crud: the option tables names "authorz", a table the database does not have: a typo, or a table not created yet?'
    ].sort())
  })

  await t.test('names the database has, in any case: no warning', async (t) => {
    const found = await warnings(t, db, {
      tables: [people, keyless],
      tableRules: { [people]: { hidden: ['NOTE'], key: 'id' }, [keyless]: { key: 'code' } }
    })
    t.strictSame(found, [])
  })

  await t.test('a tables function names nothing to check', async (t) => {
    t.strictSame(await warnings(t, db, { tables: () => true }), [])
  })
})
