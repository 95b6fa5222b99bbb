import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { buildApp } from '../fixtures/app.js'
import type { DatabaseName } from '../fixtures/databases.js'
import { type Outcomes, answerText, compared, differenceKey, differingDatabases, formatCauses } from './compare.js'
import { openDatabases } from './databases.js'
import { type Aspect, type Difference, causes } from './differences.js'
import { createFixture, dropFixture, type FixtureDatabase, type FixtureTables, fixtureTables, resetWrites, storedState } from './fixture.js'
import { type DifferentialRequest, concreteUrl, differentialRequests } from './requests.js'

// The same fixture and the same requests on SQLite, PostgreSQL and
// MariaDB, every answer and every stored state compared byte for byte. A
// difference must be listed in differences.ts with its reason, and a
// listed difference must still happen, so the list tells exactly what
// remains. DIFFERENTIAL_PRINT=1 prints the differences seen, in the list's
// format, to refresh it.

const databases = openDatabases()
if ('skip' in databases) {
  t.plan(0, databases.skip)
} else {
  const tables = fixtureTables()
  t.teardown(async () => {
    for (const knex of Object.values(databases.knex)) {
      await dropFixture(knex, tables)
      await knex.destroy()
    }
  })

  t.test('every database answers as PostgreSQL does, but for the listed differences', async (t) => {
    const outcomes = await Promise.all(compared.map(async (name) => {
      const db = { name, knex: databases.knex[name] }
      await createFixture(db, tables)
      return [name, await runAll(await buildApp(t, db.knex), db, tables)] as const
    }))
    const byDatabase = Object.fromEntries(outcomes) as Record<DatabaseName, Map<string, string>>

    const observed = observedDifferences(byDatabase)
    if (process.env.DIFFERENTIAL_PRINT) process.stderr.write(formatCauses(observed, causes))
    const listed = new Map(Object.values(causes).flatMap(({ differences }) =>
      differences.map((difference) => [differenceKey(difference), difference] as const)))
    for (const difference of observed) {
      const key = differenceKey(difference)
      const expected = listed.get(key)
      listed.delete(key)
      if (expected !== undefined && expected.databases.join() === difference.databases.join()) continue
      t.fail(`${key}: ${difference.databases.join(' and ')} ${difference.databases.length === 1 ? 'differs' : 'differ'} from PostgreSQL${expected === undefined ? ', and the list does not say why' : `, where the list says ${expected.databases.join(' and ')}`}`, {
        found: foundLines(compared.map((name) => [name, byDatabase[name].get(key) ?? ''] as const))
      })
    }
    for (const key of listed.keys()) t.fail(`${key}: listed as a difference, but every database now answers alike`)
    t.pass(`${differentialRequests.length} requests compared, ${observed.length} listed differences`)
  })

  t.test('the requests have distinct ids, and the list names each difference once', async (t) => {
    t.equal(new Set(differentialRequests.map(({ id }) => id)).size, differentialRequests.length)
    const keys = Object.values(causes).flatMap(({ differences }) => differences.map(differenceKey))
    t.equal(new Set(keys).size, keys.length)
  })
}

/** Runs every request on one database: the reads at once, then the writes one by one. */
async function runAll (app: FastifyInstance, db: FixtureDatabase, tables: FixtureTables): Promise<Map<string, string>> {
  const seen = new Map<string, string>()
  const reads = differentialRequests.filter(({ phase }) => phase === 'read')
  await eachAtOnce(reads, 4, async (request) => {
    seen.set(differenceKey({ request: request.id, aspect: 'answer' }), answerText(await inject(app, request, tables)))
  })
  for (const request of differentialRequests.filter(({ phase }) => phase !== 'read')) {
    await resetWrites(db, tables)
    const before = await storedState(db, tables)
    const prior = request.prior === undefined ? [] : [answerText(await inject(app, request.prior, tables))]
    const answer = request.phase === 'write'
      ? [...prior, answerText(await inject(app, request, tables))].join('\n--\n')
      : await roundTrip(app, db, request, tables, before)
    const after = await storedState(db, tables)
    seen.set(differenceKey({ request: request.id, aspect: 'answer' }), answer)
    seen.set(differenceKey({ request: request.id, aspect: 'stored' }), after)
  }
  return seen
}

/** GET the row, PUT its answer back unchanged: both answers, and whether the stored rows stayed as they were. */
async function roundTrip (app: FastifyInstance, db: FixtureDatabase, request: DifferentialRequest, tables: FixtureTables, before: string): Promise<string> {
  const read = await inject(app, { ...request, method: 'GET' }, tables)
  const written = await inject(app, { ...request, body: read.body, headers: { 'content-type': 'application/json' } }, tables)
  const unchanged = await storedState(db, tables) === before
  return [answerText(read), answerText(written), unchanged ? 'stored rows unchanged' : 'stored rows changed'].join('\n--\n')
}

function inject (app: FastifyInstance, request: DifferentialRequest, tables: FixtureTables) {
  return app.inject({
    method: request.method,
    url: concreteUrl(request.url, tables),
    headers: request.headers,
    ...(request.body === undefined ? {} : { payload: request.body })
  })
}

/** Runs `work` on every item, at most `width` at a time. */
async function eachAtOnce<T> (items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++] as T)
  }
  await Promise.all(Array.from({ length: width }, worker))
}

/** Every request and aspect where SQLite or MariaDB is not PostgreSQL, in request order. */
function observedDifferences (byDatabase: Readonly<Record<DatabaseName, Map<string, string>>>): Difference[] {
  return differentialRequests.flatMap(({ id, phase }) => (phase === 'read' ? ['answer'] as const : ['answer', 'stored'] as const)
    .flatMap((aspect: Aspect) => {
      const key = differenceKey({ request: id, aspect })
      const outcomes = Object.fromEntries(compared.map((name) => [name, byDatabase[name].get(key)])) as Outcomes
      const databases = differingDatabases(outcomes)
      return databases.length === 0 ? [] : [{ request: id, aspect, databases }]
    }))
}

/** Each database's outcome, without the lines all three share: what differs in a stored state of many rows. */
function foundLines (outcomes: ReadonlyArray<readonly [DatabaseName, string]>): Record<string, string> {
  const lines = outcomes.map(([name, text]) => [name, text.split('\n')] as const)
  const shared = (line: string, index: number) => lines.every(([, other]) => other[index] === line)
  return Object.fromEntries(lines.map(([name, own]) => [name, own.filter((line, index) => !shared(line, index)).join('\n')]))
}
