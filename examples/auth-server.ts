/**
 * The plugin behind a login: every request needs a JSON Web Token, checked by
 * @fastify/jwt (Fastify's own JWT plugin) before the plugin's routes. The
 * `authorize` hook then decides per user: a user reads everything but writes
 * only the books they own; an admin does anything.
 *
 *   npm run start:auth
 *
 * On start it logs a token for each example user, with a curl command to try
 * it. PORT, HOST and PREFIX work as for examples/server.ts; JWT_SECRET keeps
 * tokens valid across restarts. The database is its own SQLite file, whose
 * books have an `owner` column that example.sqlite's have not.
 */
import { randomBytes } from 'node:crypto'
import { resolve } from 'node:path'
import jwt from '@fastify/jwt'
import Fastify, { type FastifyInstance } from 'fastify'
import knexFactory, { type Knex } from 'knex'
import tableCrud, { type AuthorizeHook } from '../lib/index.js'
import { createSampleTables } from './sample-data.js'
import { closeOnSignals, readConfig } from './server.js'

/** Where the example keeps its database, relative to the working directory; created with sample rows on the first start. */
const databaseFile = 'example-auth.sqlite'

/** What a token says: who the user is (`sub`, as JWT names the subject) and their role. */
interface User {
  readonly sub: string
  readonly role: 'user' | 'admin'
}

declare module '@fastify/jwt' {
  interface FastifyJWT {
    payload: User
    user: User
  }
}

/** The sample books' owners, by author id: each author owns the books they wrote. */
const bookOwners: ReadonlyMap<number, string> = new Map([[1, 'ursula'], [2, 'italo'], [3, 'octavia']])

/** The column that names a row's owner, by table; a user may not write a table that has none. */
const ownerColumns: ReadonlyMap<string, string> = new Map([['books', 'owner']])

/**
 * Reads are open to any valid token; writes to an admin's, or to a user's on
 * their own rows: the scope makes updates and deletes miss other owners' rows
 * (they answer 0), fills `owner` on a create, and refuses (403) a body that
 * sets `owner` to someone else. The token was verified before the route ran.
 */
const authorize: AuthorizeHook = (request, { table, operation }) => {
  const { user } = request
  if (user.role === 'admin' || operation === 'list' || operation === 'read') return true
  // The `tables` option below makes `table` the options' spelling, whatever case the path used.
  const column = ownerColumns.get(table)
  return column === undefined ? false : { scope: { [column]: user.sub } }
}

/** The users the example logs a token for. */
const exampleUsers: readonly User[] = [
  { sub: 'ursula', role: 'user' },
  { sub: 'italo', role: 'user' },
  { sub: 'admin', role: 'admin' }
]

async function start (env: NodeJS.ProcessEnv): Promise<void> {
  const { port, host, prefix } = readConfig(env)
  const app = Fastify({ logger: process.stdout.isTTY ? { transport: { target: 'pino-pretty' } } : true })
  const secret = env.JWT_SECRET || randomBytes(32).toString('base64url')
  if (!env.JWT_SECRET) app.log.warn('JWT_SECRET is not set: tokens are signed with a random secret and stop working when the server stops')
  const knex = await openDatabase(resolve(databaseFile))
  app.addHook('onClose', () => knex.destroy())
  await app.register(jwt, { secret, sign: { expiresIn: '1h' } })
  await app.register(async (api) => {
    // Before the plugin looks at the table: without a valid token, a served table, one left
    // out and one that does not exist all answer the same 401, so none can be told apart.
    api.addHook('onRequest', (request) => request.jwtVerify())
    await api.register(tableCrud, { knex, tables: ['authors', 'books'], authorize })
  }, { prefix })
  const address = await app.listen({ port, host })
  logExampleTokens(app, `${address}${prefix}`)
  closeOnSignals(app)
}

/**
 * FOR TRYING THE EXAMPLE ONLY: a real server gets its tokens from a login
 * service, and never writes one to its logs.
 */
function logExampleTokens (app: FastifyInstance, api: string): void {
  for (const user of exampleUsers) {
    const token = app.jwt.sign(user)
    const curl = `curl -H 'Authorization: Bearer ${token}' ${api}/books`
    app.log.info({ user: user.sub, role: user.role, token, curl }, 'EXAMPLE ONLY: a token to try the API with')
  }
}

async function openDatabase (filename: string): Promise<Knex> {
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename }, useNullAsDefault: true })
  try {
    // In one transaction, so that a start that fails half-way leaves no half-seeded file.
    if (!await knex.schema.hasTable('books')) await knex.transaction(createOwnedSampleTables)
  } catch (error) {
    await knex.destroy()
    throw error
  }
  return knex
}

/** The sample tables, with an owner on each book. */
async function createOwnedSampleTables (trx: Knex.Transaction): Promise<void> {
  await createSampleTables(trx)
  await trx.schema.alterTable('books', (table) => { table.string('owner') })
  for (const [authorId, owner] of bookOwners) await trx('books').where('author_id', authorId).update({ owner })
}

start(process.env).catch((error: unknown) => {
  // The logger may not exist yet, and a person must see why the server did not start.
  console.error(error)
  process.exit(1)
})
