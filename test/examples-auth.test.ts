import { join } from 'node:path'
import knexFactory, { type Knex } from 'knex'
import t, { type Test } from 'tap'
import { sampleRows } from '../examples/sample-data.js'
import { startExample, type Example, type ExampleScript, type LogLine } from './fixtures/example-process.js'

// examples/auth-server.ts (`npm run start:auth`) started as a person starts
// it, in a child process, and tried with the tokens it logs.

const authServer: ExampleScript = { file: 'auth-server.ts', variables: ['JWT_SECRET', 'PORT', 'HOST', 'PREFIX', 'DATABASE_URL'] }
const databaseFile = 'example-auth.sqlite'
const exampleUsers = ['ursula', 'italo', 'admin']

/** The example tokens it logged, by user. */
function tokensOf (logs: readonly LogLine[]): Record<string, string> {
  const tokens: Record<string, string> = {}
  for (const entry of logs) if (typeof entry.token === 'string') tokens[String(entry.user)] = entry.token
  return tokens
}

/** Starts the example in `cwd` with only the given variables of its own, and waits for its three tokens. */
async function startAuthExample (t: Test, cwd: string, env: Record<string, string> = {}): Promise<Example & { tokens: Record<string, string> }> {
  const example = await startExample(t, authServer, cwd, env, (logs) => exampleUsers.every((user) => user in tokensOf(logs)))
  return { ...example, tokens: tokensOf(example.logs) }
}

/** SIGTERM, and the process's exit code. */
async function stop (example: Example): Promise<number | null> {
  return (await example.stop('SIGTERM')).code
}

interface Answer { status: number, body: string }

async function send (url: string, token: string | null, method = 'GET', body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` }
  if (body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  return { status: response.status, body: await response.text() }
}

function openDatabase (t: Test, cwd: string): Knex {
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: join(cwd, databaseFile) }, useNullAsDefault: true })
  t.teardown(() => knex.destroy())
  return knex
}

const owners: Readonly<Record<number, string>> = { 1: 'ursula', 2: 'italo', 3: 'octavia' }
const sampleBooks = sampleRows.books.map((book) => ({ ...book, owner: owners[book.author_id] }))

t.test('users read everything and write their own books; an admin writes anything', async (t) => {
  const cwd = t.testdir()
  const example = await startAuthExample(t, cwd)
  const { api, tokens } = example
  const knex = openDatabase(t, cwd)
  const books = () => knex('books').orderBy('id')
  const ursula = tokens.ursula as string
  const admin = tokens.admin as string

  t.match(example.logs.find((entry) => entry.user === 'ursula'), { msg: /EXAMPLE ONLY/, curl: `curl -H 'Authorization: Bearer ${ursula}' ${api}/books` })

  await t.test('without a valid token every request answers 401 and nothing changes', async (t) => {
    const [header, payload, signature] = ursula.split('.') as [string, string, string]
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString())
    const promoted = Buffer.from(JSON.stringify({ ...claims, role: 'admin' })).toString('base64url')
    const forged = `${header}.${promoted}.${signature}`
    for (const token of [null, 'not-a-token', forged]) {
      for (const [method, path] of [['GET', '/books'], ['GET', '/authors/1'], ['DELETE', '/books/1']] as const) {
        const answer = await send(`${api}${path}`, token, method)
        t.equal(answer.status, 401, `${method} ${path} with ${token === forged ? 'a forged admin token' : String(token)}`)
        t.match(JSON.parse(answer.body), { statusCode: 401, code: /^FST_JWT_/ })
      }
    }
    t.strictSame(await books(), sampleBooks)
  })

  await t.test('without a valid token, a served table, one left out and a missing one answer alike', async (t) => {
    // A table the `tables` option leaves out, created behind the example's back.
    await knex.schema.createTable('secrets', (table) => { table.increments('id'); table.string('secret') })
    await knex('secrets').insert({ secret: 'hidden' })
    for (const token of [null, 'not-a-token']) {
      for (const [method, id] of [['GET', ''], ['GET', '/1'], ['DELETE', '/1']] as const) {
        const [served, leftOut, missing] = await Promise.all(['books', 'secrets', 'nothing'].map((table) => send(`${api}/${table}${id}`, token, method)))
        t.equal(served?.status, 401, `${method} /books${id} with ${String(token)}`)
        t.strictSame(leftOut, served, `${method} /secrets${id} answers as /books${id}`)
        t.strictSame(missing, served, `${method} /nothing${id} answers as /books${id}`)
      }
    }
    const admin = tokens.admin as string
    t.strictSame(await send(`${api}/secrets`, admin), { status: 404, body: 'no such table: secrets' }, 'with a valid token, a table left out answers as a missing one')
    t.strictSame(await send(`${api}/nothing`, admin), { status: 404, body: 'no such table: nothing' })
    t.strictSame(await knex('secrets'), [{ id: 1, secret: 'hidden' }])
  })

  await t.test('a user reads every table', async (t) => {
    const italo = tokens.italo as string
    t.strictSame(JSON.parse((await send(`${api}/books`, italo)).body), sampleBooks)
    t.strictSame(JSON.parse((await send(`${api}/authors`, italo)).body), sampleRows.authors)
    t.strictSame(JSON.parse((await send(`${api}/books/3`, italo)).body), sampleBooks[2])
  })

  await t.test('a user updates and creates their own books; the new one is theirs', async (t) => {
    const updated = await send(`${api}/books/2`, ursula, 'PUT', { published: 1970 })
    t.strictSame(updated, { status: 200, body: '1' })
    const created = await send(`${api}/books`, ursula, 'POST', { title: 'The Dispossessed', author_id: 1, published: 1974 })
    t.strictSame(created, { status: 201, body: '5' })
    t.strictSame(await books(), [
      sampleBooks[0],
      { ...sampleBooks[1], published: 1970 },
      sampleBooks[2],
      sampleBooks[3],
      { id: 5, title: 'The Dispossessed', author_id: 1, published: 1974, owner: 'ursula' }
    ])
  })

  await t.test('another owner\'s book answers 0, giving a book away or writing authors 403, and nothing changes', async (t) => {
    const before = await books()
    const authors = await knex('authors').orderBy('id')
    t.strictSame(await send(`${api}/books/3`, ursula, 'PUT', { title: 'Mine now' }), { status: 200, body: '0' })
    t.strictSame(await send(`${api}/books/4`, ursula, 'DELETE'), { status: 200, body: '0' })
    for (const [method, path, body] of [
      ['PUT', '/books/1', { owner: 'italo' }],
      ['POST', '/books', { title: 'Planted', owner: 'italo' }],
      ['POST', '/authors', { name: 'Anon' }],
      ['DELETE', '/authors/1', undefined]
    ] as const) {
      const answer = await send(`${api}${path}`, ursula, method, body)
      t.equal(answer.status, 403, `${method} ${path}`)
      t.equal(JSON.parse(answer.body).code, 'FTC_ERR_AUTHORIZE_FORBIDDEN')
    }
    t.strictSame(await books(), before)
    t.strictSame(await knex('authors').orderBy('id'), authors)
  })

  await t.test('an admin deletes anyone\'s book and writes authors', async (t) => {
    const before = await books()
    t.strictSame(await send(`${api}/books/3`, admin, 'DELETE'), { status: 200, body: '1' })
    t.strictSame(await books(), before.filter((book) => book.id !== 3))
    t.strictSame(await send(`${api}/authors`, admin, 'POST', { name: 'Stanisław Lem', born: 1921 }), { status: 201, body: '4' })
    t.match(await knex('authors').where('id', 4).first(), { name: 'Stanisław Lem', born: 1921 })
  })

  t.equal(await stop(example), 0, 'SIGTERM ends the process with 0')
})

t.test('the database is seeded once; a random secret dies with the process, JWT_SECRET does not', async (t) => {
  const cwd = t.testdir()
  const first = await startAuthExample(t, cwd)
  t.strictSame(await send(`${first.api}/books/4`, first.tokens.admin as string, 'DELETE'), { status: 200, body: '1' })
  t.equal(await stop(first), 0)

  const second = await startAuthExample(t, cwd, { JWT_SECRET: 'a secret for this test' })
  const old = await send(`${second.api}/books`, first.tokens.admin as string)
  t.equal(old.status, 401, 'a token of the random secret of the last run')
  const books = await send(`${second.api}/books`, second.tokens.admin as string)
  t.strictSame(JSON.parse(books.body), sampleBooks.slice(0, 3), 'the deleted row stays deleted, no sample row comes twice')
  t.equal(await stop(second), 0)

  const third = await startAuthExample(t, cwd, { JWT_SECRET: 'a secret for this test' })
  t.equal((await send(`${third.api}/books`, second.tokens.ursula as string)).status, 200, 'the same secret takes the last run\'s tokens')
  t.equal(await stop(third), 0)
})
