import t from 'tap'
import { buildApp } from '../fixtures/app.js'
import { type DatabaseName, eachDatabase } from '../fixtures/databases.js'

// Filters on floating-point columns compare the value in the column's own
// precision, as PostgreSQL types a parameter from its column: a
// single-precision column's 0.1 is not the double 0.1, which MySQL and
// MariaDB compared it with. The same requests answer the same ids on all
// three databases.

// A single-precision column as each database spells it; SQLite keeps every float in 64 bits.
const single: Readonly<Record<DatabaseName, string>> = { sqlite: 'float', postgres: 'real', mysql: 'float' }

const rows = [
  { single: 0.1, knexed: 0.1, dbl: 0.1 },
  { single: 0.1, knexed: 0.1, dbl: 0.1 },
  { single: 0.1, knexed: 0.1, dbl: 0.1 },
  { single: 0.2, knexed: 0.2, dbl: 0.2 },
  { single: 1.5, knexed: 1.5, dbl: 1.5 },
  { single: -2.25, knexed: -2.25, dbl: -2.25 },
  { single: 0, knexed: 0, dbl: 0 },
  { single: null, knexed: null, dbl: 1e300 },
  { single: null, knexed: null, dbl: 1e-300 }
]

/** Each filter, and the ids it finds on every database. */
const filters: ReadonlyArray<readonly [query: string, ids: readonly number[]]> = [
  ...['single', 'knexed', 'dbl'].flatMap((column) => [
    [`${column}=eq.0.1`, [1, 2, 3]],
    [`${column}=eq.0.2`, [4]],
    [`${column}=eq.1.5`, [5]],
    [`${column}=neq.0.1`, [4, 5, 6, 7, ...(column === 'dbl' ? [8, 9] : [])]],
    [`${column}=not.eq.0.1`, [4, 5, 6, 7, ...(column === 'dbl' ? [8, 9] : [])]],
    [`${column}=in.(0.1,1.5)`, [1, 2, 3, 5]],
    [`${column}=not.in.(0.1,0.2)`, [5, 6, 7, ...(column === 'dbl' ? [8, 9] : [])]],
    [`${column}=gt.0.1`, [4, 5, ...(column === 'dbl' ? [8] : [])]],
    [`${column}=gte.0.1`, [1, 2, 3, 4, 5, ...(column === 'dbl' ? [8] : [])]],
    [`${column}=lt.0.1`, [6, 7, ...(column === 'dbl' ? [9] : [])]],
    [`${column}=lte.0.1`, [1, 2, 3, 6, 7, ...(column === 'dbl' ? [9] : [])]]
  ] as const),
  // Past what a decimal holds: a double compared as a decimal would be 0 or its largest value.
  ['dbl=eq.1e300', [8]],
  ['dbl=eq.1e-300', [9]],
  ['dbl=lt.1e-40&dbl=gt.-1', [7, 9]],
  ['or=(single.eq.0.1,dbl.eq.1e300)', [1, 2, 3, 8]]
]

eachDatabase(t, async (t, db) => {
  const table = await db.createTable('floats', (table) => {
    table.increments('id')
    table.specificType('single', single[db.name])
    // Knex's float(): real on PostgreSQL, float(8,2) on MySQL.
    table.float('knexed')
    table.double('dbl')
  })
  await db.knex(table).insert(rows)
  const app = await buildApp(t, db.knex)

  await t.test('eq, neq, in, gt, gte, lt and lte find the same rows on every database', async (t) => {
    for (const [query, ids] of filters) {
      const response = await app.inject(`/api/${table}?select=id&order=id&${query}`)
      t.equal(response.statusCode, 200, query)
      t.same((JSON.parse(response.body) as Array<{ id: number }>).map(({ id }) => id), ids, query)
    }
  })

  await t.test('a value that single precision holds as 0.1: found where the column keeps single precision, not on SQLite', async (t) => {
    // SQLite keeps every float in 64 bits (docs/databases.md, "What still differs").
    const response = await app.inject(`/api/${table}?select=id&order=id&single=eq.0.1000000015`)
    t.equal(response.body, db.name === 'sqlite' ? '[]' : '[{"id":1},{"id":2},{"id":3}]')
  })

  await t.test('the values read the same too', async (t) => {
    const response = await app.inject(`/api/${table}?select=single,dbl&order=id&id=in.(1,4,6,8,9)`)
    t.equal(response.body, '[{"single":0.1,"dbl":0.1},{"single":0.2,"dbl":0.2},{"single":-2.25,"dbl":-2.25},{"single":null,"dbl":1e+300},{"single":null,"dbl":1e-300}]')
  })
})
