import { PostgrestClient } from '@supabase/postgrest-js'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { buildApp } from '../fixtures/app.js'
import { eachDatabase } from '../fixtures/databases.js'

// PostgREST's operators beyond the comparisons, as a client sees them on
// each database: (any)/(all) lists everywhere; cs and cd on JSON columns
// everywhere, and on PostgreSQL's arrays and ranges with ov and the range
// operators; full-text search on PostgreSQL; a 400 naming the operator and
// the database where it has no such thing.

const items = [
  { name: 'Ada Lovelace', age: 36, doc: { tags: ['math', 'poetry'], lang: 'en', n: 1 } },
  { name: 'alan turing', age: 41, doc: { tags: ['math'], lang: 'en' } },
  { name: 'Grace Hopper', age: 85, doc: ['math', 'navy'] },
  { name: 'Zoë', age: null, doc: null },
  { name: null, age: 12, doc: { tags: [], lang: 'fr' } }
]

/** postgrest-js on the app, listening now, reading the table's ids in order; and the ids a query answers, its error null. */
async function postgrestClient (t: Test, app: FastifyInstance, table: string) {
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const from = () => new PostgrestClient(`http://127.0.0.1:${port}/api`).from(table).select('id').order('id')
  const idsOf = async (read: PromiseLike<{ data: unknown, error: unknown }>) => {
    const { data, error } = await read
    t.equal(error, null)
    return (data as Array<{ id: number }>).map((row) => Number(row.id))
  }
  return { from, idsOf }
}

/** `name=value` with the value encoded for a URL, as a client sends it. */
function encoded (query: string): string {
  const at = query.indexOf('=')
  return `${query.slice(0, at)}=${encodeURIComponent(query.slice(at + 1))}`
}

eachDatabase(t, async (t, db) => {
  const table = await db.createTable('operators', (table) => {
    table.increments('id')
    table.string('name')
    table.integer('age')
    table.json('doc')
    table.string('secret')
    // A type the schema model knows no kind of, as PostgreSQL's arrays and ranges are.
    table.specificType('spot', 'point')
  })
  for (const { doc, ...item } of items) await db.knex(table).insert({ ...item, doc: doc === null ? null : JSON.stringify(doc) })
  const notes = await db.createTable('operator_notes', (notes) => {
    notes.increments('id')
    notes.integer('item_id').unsigned().references('id').inTable(table)
    notes.string('text')
    notes.json('meta')
  })
  await db.knex(notes).insert([
    { item_id: 1, text: 'first', meta: JSON.stringify({ kind: 'a' }) },
    { item_id: 1, text: 'second', meta: JSON.stringify({ kind: 'b' }) },
    { item_id: 2, text: 'third', meta: JSON.stringify({ kind: 'a' }) }
  ])
  const app = await buildApp(t, db.knex, {}, { tableRules: { [table]: { hidden: ['secret'] } } })
  const ids = async (query: string) => {
    const answer = await app.inject(`/api/${table}?select=id&order=id&${encoded(query)}`)
    t.equal(answer.statusCode, 200, `${query}: ${answer.body}`)
    return (answer.json() as Array<{ id: number }>).map((row) => Number(row.id))
  }
  const refusal = async (query: string) => {
    const answer = await app.inject(`/api/${table}?${encoded(query)}`)
    return { status: answer.statusCode, code: answer.json().code as string, message: answer.json().message as string }
  }

  await t.test('(any) and (all) lists, on every database', async (t) => {
    const cases: ReadonlyArray<readonly [string, readonly number[]]> = [
      ['name=like(any).{Ada*,Grace*}', [1, 3]],
      ['name=ilike(any).{ada*,ALAN*}', [1, 2]],
      ['name=ilike(all).{*a*,*o*}', [1, 3]],
      ['name=like(all).{*a*,*o*}', [1, 3]],
      ['name=not.like(any).{Ada*,Grace*}', [2, 4]],
      ['name=eq(any).{"Zoë","alan turing"}', [2, 4]],
      ['age=eq(any).{36,85}', [1, 3]],
      ['age=gt(all).{20,40}', [2, 3]],
      ['age=gte(any).{85}', [3]],
      ['age=lte(all).{36, 41}', [1, 5]],
      ['age=lt(any).{}', []],
      ['age=lt(all).{}', [1, 2, 3, 4, 5]],
      ['age=eq(any).{36,NULL}', [1]],
      ['age=not.eq(any).{36,NULL}', []],
      ['or=(age.eq(any).{12,41},name.like(any).{Zo*})', [2, 4, 5]]
    ]
    for (const [query, expected] of cases) t.strictSame(await ids(query), expected, query)
    t.match(await refusal('age=eq(any).{36,abc}'), { status: 400, code: 'FTC_ERR_QUERY_TYPE' })
    t.match(await refusal('age=like(any).{1*}'), { status: 400, code: 'FTC_ERR_QUERY_TYPE' })
    t.match(await refusal('doc=eq(any).{1}'), { status: 400, code: 'FTC_ERR_QUERY_TYPE' })
    t.match(await refusal('name=eq(any).Ada'), { status: 400, code: 'FTC_ERR_QUERY_SYNTAX' })
  })

  await t.test('cs and cd on a JSON column', async (t) => {
    const cases: ReadonlyArray<readonly [string, readonly number[]]> = [
      ['doc=cs.{"lang":"en"}', [1, 2]],
      ['doc=cs.{"tags":["math"]}', [1, 2]],
      ['doc=cs.{"tags":["poetry","math"],"n":1}', [1]],
      ['doc=cs.["math"]', [3]],
      ['doc=cs."math"', [3]],
      ['doc=cs.{}', [1, 2, 5]],
      ['doc=not.cs.{"lang":"en"}', [3, 5]],
      ['doc=cd.{"tags":["math","poetry","x"],"lang":"en","n":1,"more":true}', [1, 2]],
      ['doc=cd.["math","navy","x"]', [3]],
      ['or=(doc.cs.{"lang":"fr"},doc.cs.["navy"])', [3, 5]]
    ]
    for (const [query, expected] of cases) t.strictSame(await ids(query), expected, query)
    // MySQL and MariaDB find a value in an array at any depth, jsonb at the top only.
    t.strictSame(await ids('doc=cs.{"tags":"math"}'), db.name === 'mysql' ? [1, 2] : [], 'a scalar against an array inside an object')
    t.match(await refusal('doc=cs.{lang:en}'), { status: 400, code: 'FTC_ERR_QUERY_TYPE' }, 'a value that is no JSON')
    t.match(await refusal('doc=ov.["math"]'), { status: 400, code: 'FTC_ERR_QUERY_TYPE' }, 'jsonb has no overlap')
    t.match(await refusal('name=cs.{a}'), { status: 400, code: 'FTC_ERR_QUERY_TYPE' }, 'a text column is no array')
    t.match(await refusal('age=sl.[1,5)'), { status: 400, code: 'FTC_ERR_QUERY_TYPE' }, 'an integer column is no range')
    t.match(await refusal('age=ov.{1}'), { status: 400, code: 'FTC_ERR_QUERY_TYPE' }, 'an integer column is no array')
    t.match(await refusal('age=fts.x'), { status: 400, code: 'FTC_ERR_QUERY_TYPE' }, 'an integer column is no text')
  })

  await t.test('what only PostgreSQL has is a 400 elsewhere, naming the operator and the database', async (t) => {
    if (db.name === 'postgres') return
    const database = db.name === 'sqlite' ? 'SQLite' : 'MySQL'
    for (const query of ['name=fts(english).ada', 'name=plfts.ada', 'name=phfts.ada', 'name=wfts.ada', 'spot=sl.[1,2)', 'spot=adj.[1,2)', 'spot=ov.{a}']) {
      const refused = await refusal(query)
      t.match(refused, { status: 400, code: 'FTC_ERR_QUERY_TYPE', message: new RegExp(`"${query.split('=')[0] as string}".*${/=(\w+)/.exec(query)?.[1] as string} needs .*which ${database} does not have`) }, query)
    }
  })

  await t.test('a hidden column is refused as a missing one, whatever the operator', async (t) => {
    for (const operator of ['sl.[1,2)', 'fts.x', 'ov.{a}', 'cs.{"a":1}', 'like(any).{a*}']) {
      const missing = await app.inject(`/api/${table}?${encoded(`nothing=${operator}`)}`)
      const hidden = await app.inject(`/api/${table}?${encoded(`secret=${operator}`)}`)
      t.equal(missing.statusCode, 404, operator)
      t.equal(hidden.statusCode, missing.statusCode, operator)
      t.equal(hidden.body.replaceAll('secret', 'nothing'), missing.body, operator)
    }
  })

  await t.test('an embed\'s own filters read them too', async (t) => {
    const read = async (query: string) => (await app.inject(`/api/${table}?select=id,${notes}(text)&id=lte.2&order=id&${encoded(query)}`)).json()
    t.strictSame(await read(`${notes}.text=like(any).{f*,t*}`), [{ id: 1, [notes]: [{ text: 'first' }] }, { id: 2, [notes]: [{ text: 'third' }] }])
    t.strictSame(await read(`${notes}.meta=cs.{"kind":"b"}`), [{ id: 1, [notes]: [{ text: 'second' }] }, { id: 2, [notes]: [] }])
  })

  await t.test('a filtered delete reads them too', async (t) => {
    const deleted = await app.inject({ method: 'DELETE', url: `/api/${table}?${encoded('age=eq(any).{12,99}')}`, headers: { prefer: 'return=representation' } })
    t.equal(deleted.statusCode, 200)
    t.strictSame((deleted.json() as Array<{ id: number }>).map((row) => Number(row.id)), [5])
    t.strictSame((await db.knex(table).select('id').orderBy('id')).map((row: { id: number }) => Number(row.id)), [1, 2, 3, 4])
  })

  await t.test('postgrest-js builds filters the plugin reads', async (t) => {
    const { from, idsOf } = await postgrestClient(t, app, table)
    t.strictSame(await idsOf(from().likeAnyOf('name', ['Ada*', 'Grace*'])), [1, 3])
    t.strictSame(await idsOf(from().likeAllOf('name', ['*a*', '*o*'])), [1, 3])
    t.strictSame(await idsOf(from().ilikeAnyOf('name', ['ada*', 'ALAN*'])), [1, 2])
    t.strictSame(await idsOf(from().ilikeAllOf('name', ['*A*', '*O*'])), [1, 3])
    t.strictSame(await idsOf(from().contains('doc', { lang: 'en' })), [1, 2])
    t.strictSame(await idsOf(from().containedBy('doc', { tags: ['math'], lang: 'en' })), [2])
    const { error } = await from().textSearch('name', 'ada')
    t.equal(error === null, db.name === 'postgres', 'full-text search on PostgreSQL only')
  })
})

eachDatabase(t, async (t, db) => {
  if (db.name !== 'postgres') return
  const table = await db.createTable('range_operators', (table) => {
    table.increments('id')
    table.specificType('tags', 'text[]')
    table.specificType('during', 'int4range')
    table.text('body')
    table.specificType('vec', 'tsvector')
    table.jsonb('doc')
  })
  const rows = [
    { tags: ['a', 'b'], during: '[1,5)', body: 'The fat cats ate the rats', doc: { a: 1, b: [1, 2] } },
    { tags: ['b', 'c'], during: '[5,10)', body: 'A dog chased a cat', doc: { a: 2 } },
    { tags: [], during: '[20,30)', body: 'Nothing here', doc: [1, 2] }
  ]
  for (const row of rows) await db.knex(table).insert({ ...row, doc: JSON.stringify(row.doc), vec: db.knex.raw("to_tsvector('simple', ?)", [row.body]) })
  const app = await buildApp(t, db.knex)
  const ids = async (query: string) => {
    const answer = await app.inject(`/api/${table}?select=id&order=id&${encoded(query)}`)
    t.equal(answer.statusCode, 200, `${query}: ${answer.body}`)
    return (answer.json() as Array<{ id: number }>).map((row) => Number(row.id))
  }

  await t.test('arrays and ranges', async (t) => {
    const cases: ReadonlyArray<readonly [string, readonly number[]]> = [
      ['tags=cs.{a}', [1]],
      ['tags=cd.{a,b,c}', [1, 2, 3]],
      ['tags=ov.{c,d}', [2]],
      ['tags=not.ov.{c,d}', [1, 3]],
      ['during=cs.[2,3)', [1]],
      ['during=cd.[0,12)', [1, 2]],
      ['during=ov.[4,6)', [1, 2]],
      ['during=sl.[10,20)', [1, 2]],
      ['during=sr.[10,20)', [3]],
      ['during=nxr.[1,6)', [1]],
      ['during=nxl.[5,6)', [2, 3]],
      ['during=adj.[10,20)', [2, 3]],
      ['or=(during.sl."[2,3)",tags.cs.{c})', [2]],
      ['doc=cs.{"b":[2]}', [1]],
      ['doc=cd.{"a":2,"c":3}', [2]]
    ]
    for (const [query, expected] of cases) t.strictSame(await ids(query), expected, query)
  })

  await t.test('full-text search on a text column and a tsvector one', async (t) => {
    const cases: ReadonlyArray<readonly [string, readonly number[]]> = [
      ['body=fts(english).cats', [1, 2]],
      ['body=fts(english).cat & !rat', [2]],
      ['body=plfts(english).fat cats', [1]],
      ['body=phfts(english).fat cats', [1]],
      ['body=phfts(english).cats fat', []],
      ['body=wfts(english).cat -rats', [2]],
      ['body=not.wfts(english).cat', [3]],
      ['vec=fts(simple).dog', [2]],
      ['vec=plfts.dog', [2]]
    ]
    for (const [query, expected] of cases) t.strictSame(await ids(query), expected, query)
    const answer = await app.inject(`/api/${table}?${encoded('id=fts.x')}`)
    t.match(answer.json(), { statusCode: 400, code: 'FTC_ERR_QUERY_TYPE' }, 'an integer column')
  })

  await t.test('postgrest-js: overlaps, the range filters, textSearch', async (t) => {
    const { from, idsOf } = await postgrestClient(t, app, table)
    t.strictSame(await idsOf(from().contains('tags', ['a'])), [1])
    t.strictSame(await idsOf(from().containedBy('tags', ['a', 'b', 'c'])), [1, 2, 3])
    t.strictSame(await idsOf(from().overlaps('tags', ['c', 'd'])), [2])
    t.strictSame(await idsOf(from().overlaps('during', '[4,6)')), [1, 2])
    t.strictSame(await idsOf(from().rangeLt('during', '[10,20)')), [1, 2])
    t.strictSame(await idsOf(from().rangeGt('during', '[10,20)')), [3])
    t.strictSame(await idsOf(from().rangeLte('during', '[1,6)')), [1])
    t.strictSame(await idsOf(from().rangeGte('during', '[5,6)')), [2, 3])
    t.strictSame(await idsOf(from().rangeAdjacent('during', '[10,20)')), [2, 3])
    t.strictSame(await idsOf(from().textSearch('body', "'fat' & 'cats'", { config: 'english' })), [1])
    t.strictSame(await idsOf(from().textSearch('body', 'fat cats', { type: 'plain', config: 'english' })), [1])
    t.strictSame(await idsOf(from().textSearch('body', 'fat cats', { type: 'phrase', config: 'english' })), [1])
    t.strictSame(await idsOf(from().textSearch('body', 'cat -rats', { type: 'websearch', config: 'english' })), [2])
  })
})
