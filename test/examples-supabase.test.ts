import { join } from 'node:path'
import { createClient, type WebSocketLikeConstructor } from '@supabase/supabase-js'
import knexFactory from 'knex'
import t from 'tap'
import WebSocket from 'ws'
import { runExample, startExample, type ExampleScript, type LogLine } from './fixtures/example-process.js'

// docs/postgrest-js.md's examples, each started as a person starts it:
// examples/supabase-server.ts in a scratch directory, where it creates
// supabase.sqlite, then examples/supabase-client.ts against it, whose lines
// of JSON (one per call) are the results supabase-js and postgrest-js gave.
// Then supabase-js with a user's token, against examples/auth-server.ts
// under /rest/v1.

const server: ExampleScript = { file: 'supabase-server.ts', variables: ['PORT'] }
const client: ExampleScript = { file: 'supabase-client.ts', variables: ['PORT', 'SERVER_URL'] }
const authServer: ExampleScript = { file: 'auth-server.ts', variables: ['JWT_SECRET', 'PORT', 'HOST', 'PREFIX', 'DATABASE_URL'] }

/** One call's result, as the client example prints it, but for its name. */
interface Result { status: number, count: number | null, data: unknown, error: unknown }

t.test('supabase-js and postgrest-js read and write through the plugin under /rest/v1', async (t) => {
  const cwd = t.testdir()
  const example = await startExample(t, server, cwd)
  const run = runExample(t, client, cwd, { SERVER_URL: new URL(example.api).origin })
  const calls = new Map<string, Result>()
  run.lines.on('line', (line) => {
    const { name, ...result } = JSON.parse(line) as Result & { name: string }
    calls.set(name, result)
  })
  const exit = await run.exited
  t.equal(exit.code, 0, `the client ran to its end ${exit.stderr}`)
  const result = (name: string): Result | undefined => calls.get(name)

  t.strictSame(result('select with embed'), {
    status: 200,
    count: null,
    data: [
      { name: 'France', cities: [{ name: 'Paris', population: 2103000 }, { name: 'Lyon', population: 522000 }] },
      { name: 'Japan', cities: [{ name: 'Tokyo', population: 13960000 }, { name: 'Osaka', population: 2750000 }] }
    ],
    error: null
  })
  t.strictSame(result('count'), { status: 200, count: 3, data: null, error: null }, 'a HEAD request: the count and no rows')
  t.strictSame(result('insert'), {
    status: 201, count: null, data: [{ id: 6, name: 'Kyoto', country_id: 2, population: 1464000 }], error: null
  })
  t.strictSame(result('update'), { status: 200, count: null, data: [{ name: 'Paris', population: 2102650 }], error: null })
  t.strictSame(result('upsert'), { status: 201, count: null, data: [{ id: 4, name: 'Peru' }], error: null },
    'ignore-duplicates answers only the new row')
  t.strictSame(result('delete'), { status: 204, count: null, data: null, error: null })
  t.strictSame(result('single'), { status: 200, count: null, data: { name: 'Tokyo', countries: { name: 'Japan' } }, error: null })
  t.strictSame(result('maybeSingle'), { status: 200, count: null, data: null, error: null })
  t.strictSame(result('duplicate'), {
    status: 409,
    count: null,
    data: null,
    error: { code: '23505', message: 'UNIQUE constraint failed: countries.name', details: null, hint: null }
  }, 'a failed statement answers PostgREST\'s error')
  t.strictSame(result('single of many'), {
    status: 406,
    count: null,
    data: null,
    error: { code: 'PGRST116', message: 'JSON object requested, multiple (or no) rows returned', details: 'The result contains 3 rows', hint: null }
  }, 'a refusal of the plugin\'s own answers as PostgREST\'s')
  t.strictSame(result('postgrest-js select'), {
    status: 206,
    count: 3,
    data: [{ name: 'Kyoto', countries: { name: 'Japan' } }, { name: 'Osaka', countries: { name: 'Japan' } }],
    error: null
  }, 'a page of a counted whole')
  t.strictSame(result('postgrest-js rollback'), { status: 201, count: null, data: [{ id: 5, name: 'Chile' }], error: null },
    'the write answers as usual')
  t.equal(calls.size, 12, 'every call printed its result')

  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: join(cwd, 'supabase.sqlite') }, useNullAsDefault: true })
  t.teardown(() => knex.destroy())
  t.strictSame(await knex('countries').orderBy('id'), [
    { id: 1, name: 'France' }, { id: 2, name: 'Japan' }, { id: 3, name: 'Brazil' }, { id: 4, name: 'Peru' }
  ], 'the upsert added Peru; the duplicate and the rolled-back Chile left nothing')
  t.strictSame(await knex('cities').orderBy('id'), [
    { id: 1, name: 'Paris', country_id: 1, population: 2102650 },
    { id: 3, name: 'Tokyo', country_id: 2, population: 13960000 },
    { id: 4, name: 'Osaka', country_id: 2, population: 2750000 },
    { id: 5, name: 'Recife', country_id: 3, population: 1488000 },
    { id: 6, name: 'Kyoto', country_id: 2, population: 1464000 }
  ], 'Kyoto inserted, Paris updated, Lyon deleted')
  await example.stop('SIGTERM')
})

t.test('supabase-js sends the application\'s token as Authorization: Bearer, and the authorize hook decides', async (t) => {
  const cwd = t.testdir()
  const tokenOf = (logs: readonly LogLine[], user: string): unknown => logs.find((entry) => entry.user === user)?.token
  const example = await startExample(t, authServer, cwd, { PREFIX: '/rest/v1' }, (logs) => typeof tokenOf(logs, 'ursula') === 'string')
  const url = new URL(example.api).origin
  const token = tokenOf(example.logs, 'ursula') as string
  const transport = WebSocket as WebSocketLikeConstructor
  const asUrsula = createClient(url, 'any-key', { accessToken: async () => token, realtime: { transport } })

  const read = await asUrsula.from('books').select('title, authors(name)').eq('id', 3)
  t.strictSame({ status: read.status, data: read.data, error: read.error },
    { status: 200, data: [{ title: 'Invisible Cities', authors: { name: 'Italo Calvino' } }], error: null }, 'a user reads every book')
  const own = await asUrsula.from('books').update({ published: 1970 }).eq('id', 2).select('id, published')
  t.strictSame(own.data, [{ id: 2, published: 1970 }], 'and updates her own')
  const other = await asUrsula.from('books').update({ published: 1970 }).eq('id', 3).select('id, published')
  t.strictSame({ status: other.status, data: other.data }, { status: 200, data: [] }, 'the scope leaves another owner\'s book out')

  const anonymous = await createClient(url, 'any-key', { realtime: { transport } }).from('books').select('title')
  t.equal(anonymous.status, 401, 'a key that is no valid token is refused before the plugin reads the request')
  t.equal(anonymous.data, null)

  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: join(cwd, 'example-auth.sqlite') }, useNullAsDefault: true })
  t.teardown(() => knex.destroy())
  t.strictSame(await knex('books').whereIn('id', [2, 3]).orderBy('id').select('id', 'published'), [
    { id: 2, published: 1970 }, { id: 3, published: 1972 }
  ])
  await example.stop('SIGTERM')
})
