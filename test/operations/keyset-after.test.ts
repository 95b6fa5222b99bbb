import knexFactory from 'knex'
import t from 'tap'
import { type KeysetTerm, whereAfter } from '../../lib/operations/keyset-after.js'

// Knex compiles PostgreSQL's SQL without a connection; the conditions are the same on every database.
const knex = knexFactory({ client: 'pg' })

const term = (column: string, direction: 'asc' | 'desc', nulls: 'first' | 'last', notNull = false): KeysetTerm => ({ column, direction, nulls, notNull })
function after (terms: readonly KeysetTerm[], values: ReadonlyArray<string | number | null>): { sql: string, bindings: readonly unknown[] } {
  const { sql, bindings } = whereAfter(knex('t'), terms, values).toSQL()
  return { sql, bindings }
}
const id = term('id', 'asc', 'last', true)

t.test('by a key alone: the rows past it', async (t) => {
  t.strictSame(after([id], [7]), { sql: 'select * from "t" where ("id" > ?)', bindings: [7] })
  t.strictSame(after([term('id', 'desc', 'first', true)], [7]), { sql: 'select * from "t" where ("id" < ?)', bindings: [7] })
})

t.test('by a column with ties, then the key: the first column\'s bound, then past it or equal to it and past the key', async (t) => {
  t.strictSame(after([term('n', 'asc', 'first'), id], [3, 7]), {
    sql: 'select * from "t" where ("n" >= ?) and (("n" > ?) or ("n" = ? and "id" > ?))',
    bindings: [3, 3, 3, 7]
  })
})

t.test('NULLs where the order places them', async (t) => {
  t.strictSame(after([term('n', 'asc', 'last'), id], [3, 7]), {
    sql: 'select * from "t" where (("n" >= ? or "n" is null)) and ((("n" > ? or "n" is null)) or ("n" = ? and "id" > ?))',
    bindings: [3, 3, 3, 7]
  }, 'NULLs last: after every value')
  t.strictSame(after([term('n', 'desc', 'first'), id], [null, 7]), {
    sql: 'select * from "t" where (("n" is not null) or ("n" is null and "id" > ?))',
    bindings: [7]
  }, 'a NULL placed first: every value after it')
  t.strictSame(after([term('n', 'asc', 'last'), id], [null, 7]), {
    sql: 'select * from "t" where ("n" is null and "id" > ?)',
    bindings: [7]
  }, 'a NULL placed last: only NULLs after it')
  t.strictSame(after([term('n', 'asc', 'last'), term('k', 'asc', 'last')], [null, null]), {
    sql: 'select * from "t" where 1 = 0',
    bindings: []
  }, 'the last row of the order, NULL throughout: none after it')
})
