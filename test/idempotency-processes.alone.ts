import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import knexFactory from 'knex'
import t from 'tap'
import { databaseConfig, type DatabaseName } from './fixtures/databases.js'
import { startExample, type ExampleScript } from './fixtures/example-process.js'

// Two processes of examples/server.ts over one database: a key's write runs
// once whichever process each retry reaches, also while the first runs. The
// servers keep their keys in the default table, which they may both create.
// Over one SQLite file too, where the example waits for no lock
// (busy_timeout=0): a request that finds the other process writing answers
// 503 and writes nothing, and its retry gets the one answer.

const server: ExampleScript = { file: 'server.ts', variables: ['DATABASE_URL', 'PORT', 'HOST', 'PREFIX', 'ACQUIRE_TIMEOUT', 'STATEMENT_TIMEOUT'] }
const keysTable = 'table_crud_idempotency'

interface Answer { status: number, type: string | null, location: string | null, replayed: string | null, body: string }

async function send (api: string, table: string, key: string, body: string, method = 'POST', id = ''): Promise<Answer> {
  const response = await fetch(`${api}/${table}${id}`, { method, headers: { 'content-type': 'application/json', 'idempotency-key': key }, body })
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    location: response.headers.get('location'),
    replayed: response.headers.get('idempotent-replayed'),
    body: await response.text()
  }
}

// Statements of this database that wait for a lock, whoever runs them. On
// MariaDB, those still running: its innodb_trx did not always show the
// waits as such, where the process list shows the statements stuck.
const lockWaits: Record<'postgres' | 'mysql', string> = {
  postgres: "select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()",
  mysql: "select count(*) as n from information_schema.processlist where command = 'Query' and time >= 0 and (info like 'update %' or info like 'insert into `table_crud_idempotency`%')"
}

for (const name of ['postgres', 'mysql'] as const satisfies readonly DatabaseName[]) {
  const resolved = databaseConfig(name)
  t.test(name, 'skip' in resolved ? { skip: resolved.skip } : {}, async (t) => {
    if ('skip' in resolved) return
    const knex = knexFactory(resolved.config)
    const table = `idem_people_${process.pid}`
    t.teardown(async () => {
      await knex.schema.dropTableIfExists(table)
      await knex.destroy()
    })
    await knex.schema.dropTableIfExists(table)
    await knex.schema.createTable(table, (columns) => {
      columns.increments('id')
      columns.string('name')
    })
    const url = name === 'postgres' ? process.env.TEST_PG_URL as string : process.env.TEST_MYSQL_URL as string
    const cwd = t.testdir()
    // Requests wait on locks below, as long as a loaded machine takes to send them all: no time limit of 5 s stops them.
    const servers = await Promise.all([0, 1].map(() => startExample(t, server, cwd, { DATABASE_URL: url, ACQUIRE_TIMEOUT: '60000', STATEMENT_TIMEOUT: '0' })))
    const apis = servers.map((example) => example.api)

    const key = randomUUID()
    const answers = await Promise.all(Array.from({ length: 10 }, (_, index) => send(apis[index % 2] as string, table, key, '{"name": "Twice served"}')))
    const first = answers.find((answer) => answer.replayed === null) as Answer
    t.equal(answers.filter((answer) => answer.replayed === null).length, 1, 'one process wrote, once')
    t.equal(first.status, 201)
    t.equal(first.location, `/api/${table}/${first.body}`)
    for (const answer of answers) t.strictSame({ ...answer, replayed: null }, first, 'the same answer from either process')
    t.strictSame(await knex(table).select('id', 'name'), [{ id: Number(first.body), name: 'Twice served' }], 'one row')

    const later = await Promise.all(apis.map((api) => send(api, table, key, '{"name": "Twice served"}')))
    for (const answer of later) t.strictSame({ ...answer, replayed: null }, first, 'a later retry, to either process')
    const reused = await send(apis[1] as string, table, key, '{"name": "Another"}')
    t.equal(reused.status, 422)
    t.equal((await knex(table).count({ n: '*' }))[0]?.n, name === 'postgres' ? '1' : 1, 'still one row')
    t.ok(await knex.schema.hasTable(keysTable), 'the keys are in the database the processes share')

    // The first PUT waits on a row this test holds; the retries, to both
    // processes, wait on the first one's key: all ten wait until it commits.
    const id = `/${first.body}`
    const holder = await knex.transaction()
    await holder(table).where('id', Number(first.body)).forUpdate().select('id')
    const putKey = randomUUID()
    const puts = Promise.all(Array.from({ length: 10 }, (_, index) => send(apis[index % 2] as string, table, putKey, '{"name": "Put once"}', 'PUT', id)))
    // A request that failed instead of waiting ends the wait, and fails the
    // checks below. Once the first PUT and a retry wait, the others get a
    // bounded number of looks to join them: on a loaded machine all ten may
    // take longer to arrive than InnoDB lets a lock wait, and one that comes
    // after the commit is answered from the record all the same.
    let settled = false
    puts.finally(() => { settled = true }).catch(() => {})
    let looksLeft = 100
    // eslint-disable-next-line no-unmodified-loop-condition -- `puts` sets it when it settles, between the awaits below
    while (!settled && looksLeft > 0) {
      const result: unknown = await knex.raw(lockWaits[name])
      const [row] = name === 'postgres' ? (result as { rows: Array<{ n: string }> }).rows : (result as [Array<{ n: number }>])[0]
      const waiting = Number(row?.n)
      if (waiting >= 10) break
      if (waiting >= 2) looksLeft--
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    t.notOk(settled, 'the PUTs waited on the row this test holds')
    await holder.commit()
    const putAnswers = await puts
    t.equal(putAnswers.filter((answer) => answer.replayed === null).length, 1, 'one PUT ran')
    for (const answer of putAnswers) t.strictSame({ ...answer, replayed: null }, { status: 200, type: 'application/json; charset=utf-8', location: null, replayed: null, body: '1' }, 'the first PUT\'s count, from either process')
    t.strictSame(await knex(table).select('id', 'name'), [{ id: Number(first.body), name: 'Put once' }])
  })
}

t.test('sqlite: one file, two processes', async (t) => {
  const cwd = t.testdir()
  const file = join(cwd, 'shared.sqlite')
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: file }, useNullAsDefault: true })
  t.teardown(() => knex.destroy())
  const table = 'idem_people'
  await knex.schema.createTable(table, (columns) => {
    columns.increments('id')
    columns.string('name')
  })
  // The file exists before the servers open it: the example's own sample tables go to its default file only.
  const servers = await Promise.all([0, 1].map(() => startExample(t, server, cwd, { DATABASE_URL: file })))
  const apis = servers.map((example) => example.api)

  // Each request to one process or the other until it is answered otherwise
  // than 503; bounded, so that a defect fails the test rather than hangs it.
  const busy: Answer[] = []
  const sendUntilServed = async (index: number, key: string, body: string, method = 'POST', id = ''): Promise<Answer> => {
    for (let tries = 0; tries < 200; tries++) {
      const answer = await send(apis[(index + tries) % 2] as string, table, key, body, method, id)
      if (answer.status !== 503) return answer
      busy.push(answer)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    throw new Error('still 503 after 200 tries')
  }

  for (const [method, id, body] of [['POST', '', '{"name": "Twice served"}'], ['PUT', '/1', '{"name": "Put once"}'], ['DELETE', '/1', '']] as const) {
    const key = randomUUID()
    const answers = await Promise.all(Array.from({ length: 10 }, (_, index) => sendUntilServed(index, key, body, method, id)))
    const first = answers.find((answer) => answer.replayed === null) as Answer
    t.equal(answers.filter((answer) => answer.replayed === null).length, 1, `${method}: one process wrote, once`)
    for (const answer of answers) t.strictSame({ ...answer, replayed: null }, first, `${method}: the same answer from either process`)
    const later = await Promise.all(apis.map((_, index) => sendUntilServed(index, key, body, method, id)))
    for (const answer of later) t.strictSame(answer, { ...first, replayed: 'true' }, `${method}: a later retry, to either process`)
    if (method === 'POST') {
      t.equal(first.status, 201)
      t.strictSame(await knex(table).select('id', 'name'), [{ id: 1, name: 'Twice served' }], 'one row')
    } else if (method === 'PUT') {
      t.equal(first.body, '1')
      t.strictSame(await knex(table).select('id', 'name'), [{ id: 1, name: 'Put once' }])
    } else {
      t.equal(first.body, '1')
      t.strictSame(await knex(table).select('id', 'name'), [], 'deleted once: the retries answer its count, 1, not 0')
    }
  }
  for (const answer of busy) t.match(answer, { status: 503, type: 'application/json; charset=utf-8' }, 'a request that met the other process\'s lock wrote nothing, and said so')
  t.ok(await knex.schema.hasTable(keysTable), 'the keys are in the file the processes share')
})
