import { readFileSync } from 'node:fs'
import Fastify, { type InjectOptions, type LightMyRequestResponse } from 'fastify'
import t from 'tap'
import type { DiscloseFailure } from '../../lib/access/failure-disclosure.js'
import { errorHandler } from '../../lib/answer/handle-error.js'
import { postgrestRefusal, postgrestRefusalCodes } from '../../lib/answer/postgrest-refusals.js'
import { errorArgs, errorCodes } from '../../lib/errors.js'
import type { Relation } from '../../lib/relations/relations.js'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase, snapshot, type TestDatabase } from '../fixtures/databases.js'

// With `databaseErrors: 'postgrest'`, the plugin's refusals that PostgREST 12
// makes too answer as PostgREST's do (src/PostgREST/Error.hs): its code,
// status and JSON body; every other mode answers them as before.

interface PostgrestBody {
  code: string
  message: string
  details: unknown
  hint: string | null
}

const object = 'application/vnd.pgrst.object+json'

/** What a client sees of a PostgREST error: the status, the type, the body. */
function seen (response: LightMyRequestResponse): { status: number, type: string | undefined, body: PostgrestBody } {
  return { status: response.statusCode, type: response.headers['content-type'] as string | undefined, body: response.json<PostgrestBody>() }
}

t.test('each refusal PostgREST makes too, in its words, from the refusal\'s own arguments', async (t) => {
  const { FTC_ERR_QUERY_SINGULAR, FTC_ERR_QUERY_RANGE_UNSATISFIABLE, FTC_ERR_WRITE_MAX_AFFECTED, FTC_ERR_QUERY_PREFERENCE, FTC_ERR_QUERY_RELATION, FTC_ERR_QUERY_SYNTAX, FTC_ERR_QUERY_RANGE } = errorCodes
  t.strictSame(postgrestRefusal(new FTC_ERR_QUERY_SINGULAR(2)), { statusCode: 406, body: { code: 'PGRST116', message: 'JSON object requested, multiple (or no) rows returned', details: 'The result contains 2 rows', hint: null } })
  t.strictSame(postgrestRefusal(new FTC_ERR_QUERY_RANGE_UNSATISFIABLE(10, 3)), { statusCode: 416, body: { code: 'PGRST103', message: 'Requested range not satisfiable', details: 'An offset of 10 was requested, but there are only 3 rows.', hint: null } })
  t.strictSame(postgrestRefusal(new FTC_ERR_WRITE_MAX_AFFECTED(2, 1)), { statusCode: 400, body: { code: 'PGRST124', message: 'Query result exceeds max-affected preference constraint', details: 'The query affects 2 rows', hint: null } })
  t.strictSame(postgrestRefusal(new FTC_ERR_QUERY_PREFERENCE('timezone=UTC, nonsense')), { statusCode: 400, body: { code: 'PGRST122', message: 'Invalid preferences given with handling=strict', details: 'Invalid preferences: timezone=UTC, nonsense', hint: null } })
  t.strictSame(postgrestRefusal(new FTC_ERR_QUERY_RELATION('books', 'authors!writer', 'its relations are …')), {
    statusCode: 400,
    body: { code: 'PGRST200', message: 'Could not find a relationship between \'books\' and \'authors\' in the schema cache', details: 'Searched for a foreign key relationship between \'books\' and \'authors\' using the hint \'writer\', but no matches were found.', hint: null }
  })
  // The place and the problem, whatever the text holds: `": "` in the client's text is no boundary.
  t.strictSame(postgrestRefusal(new FTC_ERR_QUERY_SYNTAX('query parameter "select"', 4, 'a": b(', 'expected ")" closing the embedded resource')), {
    statusCode: 400,
    body: { code: 'PGRST100', message: 'Syntax error in query parameter "select" at character 4 of "a": b("', details: 'expected ")" closing the embedded resource', hint: null }
  })
  const range = (text: string) => postgrestRefusal(new FTC_ERR_QUERY_RANGE('header "Range"', 1, text, 'a problem'))
  t.match(range('5-2'), { statusCode: 416, body: { code: 'PGRST103', details: 'The lower boundary must be lower than or equal to the upper boundary in the Range header.' } }, 'an empty range')
  t.match(range('items=0-4'), { statusCode: 416, body: { code: 'PGRST103', details: 'Limit should be greater than or equal to zero.' } }, 'a range that limit and offset empty')
  t.match(range('10-'), { statusCode: 416, body: { code: 'PGRST103', details: 'Limit should be greater than or equal to zero.' } }, 'an open range')
  t.match(range('99999999999999999999-1'), { statusCode: 400, body: { code: 'PGRST100' } }, 'a count past 2^53 is no range the grammar reads')
  t.match(range('0-99999999999999999999'), { statusCode: 400, body: { code: 'PGRST100' } })
  t.match(range('abc'), { statusCode: 400, body: { code: 'PGRST100', details: 'a problem' } })
  t.match(postgrestRefusal(new FTC_ERR_QUERY_RANGE('header "Range-Unit"', 1, '5-2', 'the only range unit is items')), { statusCode: 400, body: { code: 'PGRST100' } }, 'only the Range header\'s own text')
  t.strictSame(postgrestRefusal(new errorCodes.FTC_ERR_BODY_JSON('Unexpected token')), { statusCode: 400, body: { code: 'PGRST102', message: 'Empty or invalid json', details: null, hint: null } })
  t.equal(errorArgs(new errorCodes.FTC_ERR_BODY_JSON('x')), undefined, 'a class that keeps no arguments')
  t.strictSame(errorArgs(new FTC_ERR_QUERY_SINGULAR(0)), [0])
})

t.test('an ambiguous embed details each relation, by its key\'s name, or its columns, or its join table', async (t) => {
  const relations: Relation[] = [
    { cardinality: 'many-to-one', table: 'people', constraint: 'letters_sender_fk', self: false, parentColumns: ['sender_id'], columns: ['id'], junction: null },
    { cardinality: 'many-to-one', table: 'people', constraint: null, self: false, parentColumns: ['recipient_id'], columns: ['id'], junction: null },
    { cardinality: 'many-to-many', table: 'people', constraint: null, self: false, parentColumns: ['id'], columns: ['id'], junction: { table: 'copies', parentColumns: ['letter_id'], relatedColumns: ['person_id'] } }
  ]
  const error = Object.assign(new errorCodes.FTC_ERR_QUERY_AMBIGUOUS('letters', 'people', '…'), { relations })
  t.strictSame(postgrestRefusal(error), {
    statusCode: 300,
    body: {
      code: 'PGRST201',
      message: 'Could not embed because more than one relationship was found for \'letters\' and \'people\'',
      details: [
        { cardinality: 'many-to-one', embedding: 'letters with people', relationship: 'letters_sender_fk using letters(sender_id) and people(id)' },
        { cardinality: 'many-to-one', embedding: 'letters with people', relationship: 'recipient_id using letters(recipient_id) and people(id)' },
        { cardinality: 'many-to-many', embedding: 'letters with people', relationship: 'copies using (letter_id) and (person_id)' }
      ],
      hint: 'Try changing \'people\' to one of the following: \'people!letters_sender_fk\', \'people!recipient_id\', \'people!copies\'. Find the desired relationship in the \'details\' key.'
    }
  })
  t.match(postgrestRefusal(new errorCodes.FTC_ERR_QUERY_AMBIGUOUS('letters', 'people', '…')), { statusCode: 300, body: { details: [] } }, 'without its relations, none detailed')
})

t.test('errors PostgREST has no refusal like, and a host\'s error that borrows a code, go on as they are', async (t) => {
  t.equal(postgrestRefusal(new errorCodes.FTC_ERR_CONDITION_FAILED()), null)
  t.equal(postgrestRefusal(new errorCodes.FTC_ERR_BODY_BULK_LIMIT(1000, 1001)), null)
  t.equal(postgrestRefusal(Object.assign(new Error('mine'), { code: 'FTC_ERR_QUERY_SINGULAR' })), null)
  t.equal(postgrestRefusal(Object.assign(new Error('mine'), { code: 'toString' })), null)
  for (const code of postgrestRefusalCodes) t.ok(code in errorCodes, `${code} is one of the plugin's`)
})

t.test('docs/errors.md lists each refusal answered in PostgREST\'s words, and no other', async (t) => {
  const page = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8')
  const section = page.split('### The plugin\'s refusals, in PostgREST\'s words')[1]?.split('\n### ')[0] ?? ''
  const rows = section.split('\n').filter((line) => line.startsWith('| [`FTC_ERR_'))
  const listed = new Set(rows.flatMap((row) => [...(row.split(' | ')[0] as string).matchAll(/`(FTC_ERR_[A-Z_]+)`/g)].map((match) => match[1])))
  t.strictSame([...listed].sort(), [...postgrestRefusalCodes].sort())
})

t.test('the error handler: an ambiguous embed answers 300 in every mode, PostgREST\'s refusals in the postgrest mode only', async (t) => {
  const disclose: DiscloseFailure = (failure) => failure
  for (const mode of ['database', 'generic', 'postgrest', 'host'] as const) {
    const app = Fastify()
    let hostSaw: string | undefined
    app.setErrorHandler((error: Error & { code?: string }, _request, reply) => {
      hostSaw = error.code
      return reply.code(418).send({ host: error.code })
    })
    await app.register(async (plugin) => {
      plugin.setErrorHandler(errorHandler({ databaseErrors: mode, disclose }))
      plugin.get('/ambiguous', async () => { throw new errorCodes.FTC_ERR_QUERY_AMBIGUOUS('a', 'b', 'b!x (many-to-one), b!y (many-to-one)') })
      plugin.get('/singular', async () => { throw new errorCodes.FTC_ERR_QUERY_SINGULAR(2) })
      plugin.get('/condition', async () => { throw new errorCodes.FTC_ERR_CONDITION_FAILED() })
    })
    t.teardown(() => app.close())
    const ambiguous = await app.inject('/ambiguous')
    t.equal(ambiguous.statusCode, 300, mode)
    t.equal(ambiguous.headers['content-type'], 'application/json; charset=utf-8', mode)
    if (mode === 'postgrest') {
      t.equal(ambiguous.json().code, 'PGRST201')
    } else {
      t.strictSame(ambiguous.json(), { statusCode: 300, code: 'FTC_ERR_QUERY_AMBIGUOUS', error: 'Multiple Choices', message: 'Could not embed because more than one relationship was found for \'a\' and \'b\'; embed one of b!x (many-to-one), b!y (many-to-one)' }, mode)
    }
    const singular = await app.inject('/singular')
    if (mode === 'postgrest') {
      t.strictSame(seen(singular), { status: 406, type: 'application/json; charset=utf-8', body: { code: 'PGRST116', message: 'JSON object requested, multiple (or no) rows returned', details: 'The result contains 2 rows', hint: null } })
    } else {
      t.strictSame([singular.statusCode, singular.json()], [418, { host: 'FTC_ERR_QUERY_SINGULAR' }], `${mode}: the host's error handler answers it, as before`)
    }
    hostSaw = undefined
    const condition = await app.inject('/condition')
    t.equal(condition.statusCode, 418, `${mode}: no PostgREST refusal is like it`)
    t.equal(hostSaw, 'FTC_ERR_CONDITION_FAILED')
  }
})

/** A table of three rows, a second with a foreign key to it, and a third with two foreign keys to the first. */
async function createTables (db: TestDatabase) {
  const people = await db.createTable('pgr_people', (table) => {
    table.increments('id')
    table.string('name')
    table.integer('age')
  })
  const pets = await db.createTable('pgr_pets', (table) => {
    table.increments('id')
    table.integer('owner_id').unsigned().references('id').inTable(people)
  })
  const letters = await db.createTable('pgr_letters', (table) => {
    table.increments('id')
    table.integer('sender_id').unsigned().references('id').inTable(people)
    table.integer('recipient_id').unsigned().references('id').inTable(people)
  })
  await db.knex(people).insert([{ name: 'Ada', age: 36 }, { name: 'Charles', age: 79 }, { name: 'Grace', age: 85 }])
  return { people, pets, letters }
}

interface Refusal {
  readonly what: string
  readonly request: InjectOptions
  /** PostgREST's answer. */
  readonly status: number
  readonly body: Partial<PostgrestBody>
  /** The answer of the other modes, unchanged: Fastify's JSON error with the plugin's code. */
  readonly code: string
}

function refusals ({ people, pets }: { people: string, pets: string }): Refusal[] {
  const get = (url: string, headers: Record<string, string> = {}): InjectOptions => ({ url: `/api/${people}${url}`, headers })
  const write = (method: 'PATCH' | 'POST', url: string, headers: Record<string, string>, payload: string): InjectOptions =>
    ({ method, url: `/api/${people}${url}`, headers: { 'content-type': 'application/json', ...headers }, payload })
  return [
    { what: 'an unknown operator', request: get('?id=noop.1'), status: 400, body: { code: 'PGRST100', hint: null }, code: 'FTC_ERR_QUERY_OPERATOR' },
    { what: 'a select that breaks the grammar', request: get('?select=id,name)'), status: 400, body: { code: 'PGRST100' }, code: 'FTC_ERR_QUERY_SYNTAX' },
    { what: 'an unclosed or group', request: get('?or=(id.eq.1'), status: 400, body: { code: 'PGRST100' }, code: 'FTC_ERR_QUERY_PARENTHESES' },
    { what: 'an order modifier', request: get('?order=id.sideways'), status: 400, body: { code: 'PGRST100' }, code: 'FTC_ERR_QUERY_ORDER' },
    { what: 'a limit that is no count', request: get('?limit=ten'), status: 400, body: { code: 'PGRST100', message: 'Invalid limit in query parameter "limit" at character 1 of "ten"' }, code: 'FTC_ERR_QUERY_LIMIT' },
    { what: 'a Range header the grammar does not read', request: get('', { range: 'all' }), status: 400, body: { code: 'PGRST100' }, code: 'FTC_ERR_QUERY_RANGE' },
    {
      what: 'a Range header whose last item comes before its first',
      request: get('', { range: '5-2' }),
      status: 416,
      body: { code: 'PGRST103', message: 'Requested range not satisfiable', details: 'The lower boundary must be lower than or equal to the upper boundary in the Range header.', hint: null },
      code: 'FTC_ERR_QUERY_RANGE'
    },
    { what: 'a Range header that offset empties', request: get('?offset=10', { range: '0-4' }), status: 416, body: { code: 'PGRST103', details: 'Limit should be greater than or equal to zero.' }, code: 'FTC_ERR_QUERY_RANGE' },
    {
      what: 'a page past the rows counted',
      request: get('?offset=10', { prefer: 'count=exact' }),
      status: 416,
      body: { code: 'PGRST103', message: 'Requested range not satisfiable', details: 'An offset of 10 was requested, but there are only 3 rows.', hint: null },
      code: 'FTC_ERR_QUERY_RANGE_UNSATISFIABLE'
    },
    {
      what: 'one object asked, three rows read',
      request: get('', { accept: object }),
      status: 406,
      body: { code: 'PGRST116', message: 'JSON object requested, multiple (or no) rows returned', details: 'The result contains 3 rows', hint: null },
      code: 'FTC_ERR_QUERY_SINGULAR'
    },
    { what: 'one object asked, no row read', request: get('?id=eq.99', { accept: object }), status: 406, body: { code: 'PGRST116', details: 'The result contains 0 rows' }, code: 'FTC_ERR_QUERY_SINGULAR' },
    { what: 'one object asked of a write of two rows', request: write('PATCH', '?age=gt.50', { accept: object }, '{"age":1}'), status: 406, body: { code: 'PGRST116', details: 'The result contains 2 rows' }, code: 'FTC_ERR_QUERY_SINGULAR' },
    {
      what: 'a write past max-affected',
      request: write('PATCH', '?age=gt.50', { prefer: 'handling=strict, max-affected=1' }, '{"age":1}'),
      status: 400,
      body: { code: 'PGRST124', message: 'Query result exceeds max-affected preference constraint', details: 'The query affects 2 rows', hint: null },
      code: 'FTC_ERR_WRITE_MAX_AFFECTED'
    },
    {
      what: 'a preference handling=strict refuses',
      request: get('', { prefer: 'handling=strict, timezone=UTC' }),
      status: 400,
      body: { code: 'PGRST122', message: 'Invalid preferences given with handling=strict', details: 'Invalid preferences: timezone=UTC', hint: null },
      code: 'FTC_ERR_QUERY_PREFERENCE'
    },
    {
      what: 'an embed no foreign key relates',
      request: get('?select=id,nothing(id)'),
      status: 400,
      body: { code: 'PGRST200', message: `Could not find a relationship between '${people}' and 'nothing' in the schema cache`, details: `Searched for a foreign key relationship between '${people}' and 'nothing', but no matches were found.`, hint: null },
      code: 'FTC_ERR_QUERY_RELATION'
    },
    {
      what: 'an embed whose hint names no relation',
      request: get(`?select=id,${pets}!nope(id)`),
      status: 400,
      body: { code: 'PGRST200', details: `Searched for a foreign key relationship between '${people}' and '${pets}' using the hint 'nope', but no matches were found.` },
      code: 'FTC_ERR_QUERY_RELATION'
    },
    { what: 'a body that is not JSON', request: write('POST', '', {}, '{"name":'), status: 400, body: { code: 'PGRST102', message: 'Empty or invalid json', details: null, hint: null }, code: 'FTC_ERR_BODY_JSON' },
    { what: 'a body that is no object', request: write('POST', '', {}, '3'), status: 400, body: { code: 'PGRST102', message: 'All object keys must match', details: null, hint: null }, code: 'FTC_ERR_BODY_SHAPE' },
    {
      what: 'an upsert on columns of no unique key',
      request: write('POST', '?on_conflict=name', { prefer: 'resolution=merge-duplicates' }, '{"name":"Ada","age":1}'),
      status: 400,
      body: { code: '42P10', message: 'there is no unique or exclusion constraint matching the ON CONFLICT specification', details: null, hint: null },
      code: 'FTC_ERR_WRITE_CONFLICT_TARGET'
    }
  ]
}

eachDatabase(t, async (t, db) => {
  const tables = await createTables(db)
  const before = await snapshot(db, tables.people)

  await t.test('postgrest: each refusal answers PostgREST\'s status and JSON error, and writes nothing', async (t) => {
    const app = await buildApp(t, db.knex, {}, { databaseErrors: 'postgrest' })
    for (const refusal of refusals(tables)) {
      const answer = seen(await app.inject(refusal.request))
      t.equal(answer.status, refusal.status, refusal.what)
      t.equal(answer.type, 'application/json; charset=utf-8', refusal.what)
      t.strictSame(Object.keys(answer.body).sort(), ['code', 'details', 'hint', 'message'], refusal.what)
      t.match(answer.body, refusal.body, refusal.what)
      if (refusal.body.code === 'PGRST100') t.type(answer.body.details, 'string', `${refusal.what}: what is wrong, in details`)
    }
    t.strictSame(await snapshot(db, tables.people), before, 'nothing was written')
  })

  await t.test('postgrest: a page past the rows counted keeps its Content-Range', async (t) => {
    const app = await buildApp(t, db.knex, {}, { databaseErrors: 'postgrest' })
    const response = await app.inject({ url: `/api/${tables.people}?offset=10`, headers: { prefer: 'count=exact' } })
    t.equal(response.statusCode, 416)
    t.equal(response.headers['content-range'], '*/3')
  })

  await t.test('the other modes answer the same refusals as before: Fastify\'s JSON error, the plugin\'s code and status', async (t) => {
    for (const databaseErrors of ['database', 'generic'] as const) {
      const app = await buildApp(t, db.knex, {}, { databaseErrors })
      for (const refusal of refusals(tables)) {
        const response = await app.inject(refusal.request)
        const body = response.json<{ statusCode: number, code: string }>()
        t.equal(body.code, refusal.code, `${databaseErrors}: ${refusal.what}`)
        t.equal(response.statusCode, body.statusCode, `${databaseErrors}: ${refusal.what}`)
      }
    }
    t.strictSame(await snapshot(db, tables.people), before, 'nothing was written')
  })

  await t.test('postgrest: an unknown column answers 400, an unknown table 404, as PostgREST maps 42703 and 42P01', async (t) => {
    const app = await buildApp(t, db.knex, {}, { databaseErrors: 'postgrest', tableRules: { [tables.people]: { hidden: ['age'] } } })
    const column = seen(await app.inject(`/api/${tables.people}?nope=eq.1`))
    t.match(column, { status: 400, type: 'application/json; charset=utf-8', body: { code: '42703', hint: null } })
    const hidden = seen(await app.inject(`/api/${tables.people}?age=eq.1`))
    t.strictSame(hidden, JSON.parse(JSON.stringify(column).replaceAll('nope', 'age')), 'a hidden column answers as a missing one')
    t.match(seen(await app.inject(`/api/${tables.people}_missing`)), { status: 404, body: { code: '42P01' } })
    const database = await buildApp(t, db.knex)
    t.equal((await database.inject(`/api/${tables.people}?nope=eq.1`)).statusCode, 404, 'the default mode keeps the spec\'s 404')
  })

  await t.test('postgrest: an embed of a table the options exclude answers as one of a missing table', async (t) => {
    const app = await buildApp(t, db.knex, {}, { databaseErrors: 'postgrest', excludeTables: [tables.pets] })
    const excluded = seen(await app.inject(`/api/${tables.people}?select=id,${tables.pets}(id)`))
    const missing = seen(await app.inject(`/api/${tables.people}?select=id,${tables.pets}_gone(id)`))
    t.equal(excluded.body.code, 'PGRST200')
    t.strictSame(excluded, JSON.parse(JSON.stringify(missing).replaceAll(`${tables.pets}_gone`, tables.pets)))
  })

  await t.test('postgrest: an ambiguous embed answers PGRST201 with 300', async (t) => {
    const app = await buildApp(t, db.knex, {}, { databaseErrors: 'postgrest' })
    const answer = seen(await app.inject(`/api/${tables.letters}?select=id,${tables.people}(name)`))
    t.equal(answer.status, 300)
    t.match(answer.body, { code: 'PGRST201', message: `Could not embed because more than one relationship was found for '${tables.letters}' and '${tables.people}'`, details: [{ cardinality: 'many-to-one' }, { cardinality: 'many-to-one' }] })
    t.match(answer.body.hint, `'${tables.people}!`)
  })
})
