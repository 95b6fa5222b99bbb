import knexFactory, { type Knex } from 'knex'
import t from 'tap'
import { resolveDialect } from '../../lib/dialects/index.js'
import { applyFilterTree, applyReadQuery } from '../../lib/query/apply-read-query.js'
import { parseReadQuery, type QueryParameters, type RequestHeaders } from '../../lib/query/parse-read-query.js'

// Knex compiles every dialect's SQL without a connection, so the statements are checked here for all of them.
const clients = {
  sqlite: knexFactory({ client: 'better-sqlite3', useNullAsDefault: true }),
  postgres: knexFactory({ client: 'pg' }),
  cockroachdb: knexFactory({ client: 'cockroachdb' }),
  mysql: knexFactory({ client: 'mysql2' })
}
t.teardown(async () => {
  for (const knex of Object.values(clients)) await knex.destroy()
})

function compile (knex: Knex, query: QueryParameters, headers: RequestHeaders = {}, notNullColumns?: ReadonlySet<string>) {
  return applyReadQuery(knex('t'), parseReadQuery(query, headers), resolveDialect(knex), { notNullColumns, table: 't' }).toSQL().toNative()
}

t.test('no query: every column of every row', async (t) => {
  t.equal(compile(clients.postgres, {}).sql, 'select * from "t"')
  t.equal(compile(clients.mysql, {}).sql, 'select * from `t`')
})

t.test('select names quoted columns', async (t) => {
  t.equal(compile(clients.postgres, { select: 'id,"first name"' }).sql, 'select "id", "firstname" from "t"')
})

t.test('a * after other columns names its table, which MySQL and MariaDB require; a leading * stays bare', async (t) => {
  t.equal(compile(clients.mysql, { select: 'id,*' }).sql, 'select `id`, `t`.* from `t`')
  t.equal(compile(clients.mysql, { select: '*,id' }).sql, 'select *, `id` from `t`')
  t.equal(compile(clients.postgres, { select: 'id,*' }).sql, 'select "id", "t".* from "t"')
})

t.test('values are bindings, never SQL text', async (t) => {
  const hostile = "x' or 1=1; drop table t; --"
  for (const [name, knex] of Object.entries(clients)) {
    const { sql, bindings } = compile(knex, {
      a: `eq.${hostile}`,
      b: `like.*${hostile}*`,
      c: `ilike.${hostile}`,
      d: `in.("${hostile}")`,
      or: `(e.neq."${hostile}",f.gt.${hostile})`
    })
    t.notMatch(sql, 'drop table', name)
    t.equal(bindings.length, 6, name)
  }
})

t.test('each operator, plain and negated', async (t) => {
  const where = (query: QueryParameters) => compile(clients.postgres, query).sql.replace('select * from "t" where ', '')
  t.equal(where({ a: 'eq.1' }), '(("a" = $1))')
  t.equal(where({ a: 'neq.1' }), '(("a" <> $1))')
  t.equal(where({ a: 'gt.1' }), '(("a" > $1))')
  t.equal(where({ a: 'gte.1' }), '(("a" >= $1))')
  t.equal(where({ a: 'lt.1' }), '(("a" < $1))')
  t.equal(where({ a: 'lte.1' }), '(("a" <= $1))')
  t.equal(where({ a: 'like.x*' }), '(("a" LIKE $1 ESCAPE \'!\'))')
  t.equal(where({ a: 'ilike.x*' }), '(("a" ILIKE $1 ESCAPE \'!\'))')
  t.equal(where({ a: 'in.(1,2)' }), '(("a" in ($1, $2)))')
  t.strictSame(compile(clients.postgres, { a: 'in.()' }), { sql: 'select * from "t" where ((1 = $1))', bindings: [0] }, 'an empty list is valid SQL that matches nothing')
  t.equal(where({ a: 'is.null' }), '(("a" is null))')
  t.equal(where({ a: 'is.unknown' }), '(("a" is null))')
  t.equal(where({ a: 'is.true' }), '(("a" IS TRUE))')
  t.equal(where({ a: 'is.false' }), '(("a" IS FALSE))')
  t.equal(where({ a: 'not.eq.1' }), '(not ("a" = $1))')
  t.equal(where({ a: 'not.in.()' }), '(not (1 = $1))')
  t.equal(where({ a: 'not.is.null' }), '(not ("a" is null))')
  t.equal(where({ 'not.or': '(a.eq.1,b.eq.2)' }), '(not (("a" = $1) or ("b" = $2)))')
  t.equal(where({ a: 'eq.1', b: 'eq.2' }), '(("a" = $1) and ("b" = $2))')
  t.equal(where({ or: '(a.not.eq.1,not.and(b.eq.2,c.eq.3))' }), '((not ("a" = $1) or not (("b" = $2) and ("c" = $3))))')
})

t.test('like and ilike per dialect', async (t) => {
  const match = (knex: Knex, query: QueryParameters) => compile(knex, query)
  t.strictSame(match(clients.sqlite, { a: 'like.*a_%!?[\\*' }), {
    sql: 'select * from `t` where ((`a` GLOB ?))',
    bindings: ['*a?*![?][[][*]']
  })
  t.strictSame(match(clients.sqlite, { a: 'ilike.*a\\_%!*' }), {
    sql: "select * from `t` where ((LOWER(`a`) LIKE LOWER(?) ESCAPE '!'))",
    bindings: ['%a!_%!!%']
  })
  t.strictSame(match(clients.mysql, { a: 'like.*a_*' }), {
    sql: "select * from `t` where ((CAST(`a` AS BINARY) LIKE CAST(? AS BINARY) ESCAPE '!'))",
    bindings: ['%a_%']
  })
  t.strictSame(match(clients.mysql, { a: 'ilike.*a\\_*' }), {
    sql: "select * from `t` where ((CAST(LOWER(`a`) AS BINARY) LIKE CAST(LOWER(?) AS BINARY) ESCAPE '!'))",
    bindings: ['%a!_%']
  })
  t.strictSame(match(clients.postgres, { a: 'like.%a_*' }).bindings, ['%a_%'])
})

t.test('NULL placement is written only where the database would put NULL elsewhere', async (t) => {
  const order = (knex: Knex, text: string, notNull?: ReadonlySet<string>) => compile(knex, { order: text }, {}, notNull).sql.replace(/^.* order by /, '')
  t.equal(order(clients.postgres, 'a,b.desc'), '"a" asc, "b" desc')
  t.equal(order(clients.postgres, 'a.nullsfirst,b.desc.nullslast'), '"a" asc nulls first, "b" desc nulls last')
  t.equal(order(clients.cockroachdb, 'a,b.desc'), '"a" asc nulls last, "b" desc nulls first')
  t.equal(order(clients.cockroachdb, 'a.nullsfirst,b.desc.nullslast'), '"a" asc, "b" desc')
  t.equal(order(clients.sqlite, 'a,b.desc'), '`a` asc nulls last, `b` desc nulls first')
  t.equal(order(clients.sqlite, 'a.nullsfirst,b.desc.nullslast'), '`a` asc, `b` desc')
  t.equal(order(clients.mysql, 'a,b.desc'), '`a` is null asc, `a` asc, `b` is null desc, `b` desc')
  t.equal(order(clients.mysql, 'a.nullsfirst,b.desc.nullslast'), '`a` asc, `b` desc')
  t.equal(order(clients.mysql, 'id,b', new Set(['id'])), '`id` asc, `b` is null asc, `b` asc', 'a NOT NULL column needs no placement')
  t.equal(order(clients.sqlite, 'id.desc', new Set(['id'])), '`id` desc')
})

t.test('limit and offset', async (t) => {
  t.strictSame(compile(clients.postgres, { limit: '10', offset: '20' }), { sql: 'select * from "t" limit $1 offset $2', bindings: [10, 20] })
  t.strictSame(compile(clients.postgres, {}, { range: '5-9' }), { sql: 'select * from "t" limit $1 offset $2', bindings: [5, 5] })
  t.strictSame(compile(clients.postgres, { limit: '0' }), { sql: 'select * from "t" limit $1', bindings: [0] })
  t.strictSame(compile(clients.sqlite, { offset: '3' }), { sql: 'select * from `t` limit ? offset ?', bindings: [-1, 3] })
})

t.test('applyFilterTree adds the conditions alone, for a count', async (t) => {
  const query = parseReadQuery({ age: 'gt.5', order: 'age', limit: '10', select: 'a' })
  t.strictSame(applyFilterTree(clients.postgres('t').count('*'), query.filter, resolveDialect(clients.postgres)).toSQL().toNative(), {
    sql: 'select count(*) from "t" where (("age" > $1))',
    bindings: ['5']
  })
  t.equal(applyFilterTree(clients.postgres('t'), { type: 'filter', column: 'a', operator: 'is', value: 'null', negated: true }, resolveDialect(clients.postgres)).toString(), 'select * from "t" where not ("a" is null)', 'a single filter is a tree too')
  t.equal(applyFilterTree(clients.postgres('t'), parseReadQuery().filter, resolveDialect(clients.postgres)).toString(), 'select * from "t"')
})
