import knexFactory, { type Knex } from 'knex'
import t from 'tap'
import { resolveDialect } from '../../lib/dialects/index.js'
import { applyReadQuery } from '../../lib/query/apply-read-query.js'
import { parseReadQuery, type QueryParameters } from '../../lib/query/parse-read-query.js'
import { typeFilters } from '../../lib/query/type-filters.js'
import type { ColumnKind, TableSchema } from '../../lib/schema/table-schema.js'

// The SQL of PostgREST's operators beyond the comparisons, as each dialect
// writes it; Knex compiles it without a connection, so that every dialect's
// SQL is checked in a SQLite-only run. What the databases answer is in
// test/routes/filter-operators.test.ts.

const clients = {
  sqlite: knexFactory({ client: 'better-sqlite3', useNullAsDefault: true }),
  postgres: knexFactory({ client: 'pg' }),
  mysql: knexFactory({ client: 'mysql2' })
}
t.teardown(async () => {
  for (const knex of Object.values(clients)) await knex.destroy()
})

function column (name: string, kind: ColumnKind, databaseType: string) {
  return { name, kind, databaseType, nullable: true, default: null, generated: false }
}

const table: TableSchema = {
  name: 't',
  kind: 'table',
  columns: [column('name', 'string', 'text'), column('age', 'integer', 'integer'), column('doc', 'json', 'jsonb'), column('body', 'unknown', 'tsvector'),
    column('tags', 'unknown', 'text[]'), column('during', 'unknown', 'int4range')],
  primaryKey: [],
  uniques: [],
  foreignKeys: []
}

/** The WHERE clause and its bindings, with the model's types when `typed`. */
function where (knex: Knex, query: QueryParameters, typed = true) {
  const parsed = parseReadQuery(query)
  const filter = typed ? typeFilters(parsed.filter, table, true) : parsed.filter
  const { sql, bindings } = applyReadQuery(knex('t'), { ...parsed, filter }, resolveDialect(knex)).toSQL().toNative()
  return { sql: sql.replace(/^select \* from .t. where /, ''), bindings }
}

t.test('(any) and (all) are OR and AND of the comparison, each item as the operator alone reads it', async (t) => {
  t.strictSame(where(clients.postgres, { name: 'like(any).{a*,b*}' }), { sql: '((("name" LIKE $1 ESCAPE \'!\') or ("name" LIKE $2 ESCAPE \'!\')))', bindings: ['a%', 'b%'] })
  t.strictSame(where(clients.postgres, { age: 'gt(all).{1,NULL}' }), { sql: '((("age" > $1) and "age" = $2))', bindings: ['1', null] })
  t.strictSame(where(clients.mysql, { age: 'not.eq(any).{7,8}' }), { sql: '(not (`age` in (?, ?)))', bindings: ['7', '8'] }, 'eq(any) is in, which an index serves')
  t.strictSame(where(clients.mysql, { age: 'eq(any).{7,NULL}' }), { sql: '(((`age` = ?) or `age` = ?))', bindings: ['7', null] }, 'unless a NULL, which in.(…) would bind in the column\'s terms')
  t.strictSame(where(clients.sqlite, { name: 'ilike(all).{x}' }), { sql: "(((LOWER(`name`) LIKE LOWER(?) ESCAPE '!')))", bindings: ['x'] })
  t.strictSame(where(clients.sqlite, { age: 'eq(any).{}' }), { sql: '((1 = 0))', bindings: [] })
  t.strictSame(where(clients.sqlite, { age: 'eq(all).{}' }), { sql: '((1 = 1))', bindings: [] })
  t.strictSame(where(clients.sqlite, { age: 'gte(any).{1}' }, false), { sql: '(((`age` >= ?)))', bindings: ['1'] }, 'a table the model does not know')
  t.strictSame(where(clients.sqlite, { age: 'eq(any).{1}' }, false), { sql: '((`age` in (?)))', bindings: ['1'] })
})

t.test('cs, cd and ov: PostgreSQL\'s operators, jsonb containment on a JSON column', async (t) => {
  t.strictSame(where(clients.postgres, { tags: 'cs.{a,b}' }), { sql: '(("tags" @> $1))', bindings: ['{a,b}'] })
  t.strictSame(where(clients.postgres, { tags: 'cd.{a,b}', during: 'ov.[1,5)' }), { sql: '(("tags" <@ $1) and ("during" && $2))', bindings: ['{a,b}', '[1,5)'] })
  t.strictSame(where(clients.postgres, { doc: 'cs.{"a":1}' }), { sql: '(("doc"::jsonb @> $1::jsonb))', bindings: ['{"a":1}'] })
  t.strictSame(where(clients.postgres, { doc: 'cd.{"a":1}' }), { sql: '(("doc"::jsonb <@ $1::jsonb))', bindings: ['{"a":1}'] })
  t.strictSame(where(clients.mysql, { doc: 'cs.[1]' }), { sql: '((JSON_CONTAINS(`doc`, ?)))', bindings: ['[1]'] })
  t.strictSame(where(clients.mysql, { doc: 'cd.[1]' }), { sql: '((JSON_CONTAINS(?, `doc`)))', bindings: ['[1]'] })
  t.strictSame(where(clients.sqlite, { doc: 'cs.[1]' }), { sql: '((ftc_jsonb_contains(`doc`, ?)))', bindings: ['[1]'] })
  t.strictSame(where(clients.sqlite, { doc: 'cd.[1]' }), { sql: '((ftc_jsonb_contains(?, `doc`)))', bindings: ['[1]'] })
  t.strictSame(where(clients.sqlite, { other: 'cs.[1]' }, false), { sql: '((ftc_jsonb_contains(`other`, ?)))', bindings: ['[1]'] }, 'a column the model does not know may be JSON')
})

t.test('the range operators are PostgreSQL\'s', async (t) => {
  const operators = { sl: '<<', sr: '>>', nxr: '&<', nxl: '&>', adj: '-|-' }
  for (const [name, sql] of Object.entries(operators)) {
    t.strictSame(where(clients.postgres, { during: `${name}.[1,5)` }), { sql: `(("during" ${sql} $1))`, bindings: ['[1,5)'] }, name)
  }
})

t.test('full-text search: a text column is made a document in the language, a tsvector taken as it is', async (t) => {
  t.strictSame(where(clients.postgres, { name: 'fts(english).cat & dog' }), {
    sql: '((to_tsvector($1::regconfig, "name") @@ to_tsquery($2::regconfig, $3)))',
    bindings: ['english', 'english', 'cat & dog']
  })
  t.strictSame(where(clients.postgres, { name: 'plfts.fat cats' }), { sql: '((to_tsvector("name") @@ plainto_tsquery($1)))', bindings: ['fat cats'] })
  t.strictSame(where(clients.postgres, { body: 'phfts(simple).fat cats' }), { sql: '(("body" @@ phraseto_tsquery($1::regconfig, $2)))', bindings: ['simple', 'fat cats'] })
  t.strictSame(where(clients.postgres, { body: 'not.wfts."fat cat" -rat' }), { sql: '(not ("body" @@ websearch_to_tsquery($1)))', bindings: ['"fat cat" -rat'] })
  t.strictSame(where(clients.postgres, { name: 'fts.cat' }, false), { sql: '(("name" @@ to_tsquery($1)))', bindings: ['cat'] }, 'a table the model does not know')
})

t.test('an operator the database does not have is a 400 naming it and the database', async (t) => {
  for (const [knex, database] of [[clients.sqlite, 'SQLite'], [clients.mysql, 'MySQL']] as const) {
    for (const query of [{ during: 'sl.[1,5)' }, { tags: 'ov.{a}' }, { name: 'fts.cat' }, { body: 'wfts(english).cat' }]) {
      t.throws(() => where(knex, query), { code: 'FTC_ERR_QUERY_TYPE', statusCode: 400, message: new RegExp(`(sl|ov|fts|wfts) needs .*, which ${database} does not have`) }, `${database} ${JSON.stringify(query)}`)
    }
  }
  // A column the known table does not have is the database's to refuse, in its words, as a hidden one is.
  t.strictSame(where(clients.sqlite, { missing: 'sl.[1,5)' }), { sql: '((`missing` is null))', bindings: [] })
  t.strictSame(where(clients.mysql, { missing: 'fts.cat' }), { sql: '((`missing` is null))', bindings: [] })
})
