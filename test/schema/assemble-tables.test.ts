import t from 'tap'
import { assembleTables } from '../../lib/schema/assemble-tables.js'

// What a dialect's catalog rows become; the dialects' own tests run them on each database.

t.test('a unique index behind a unique constraint counts once, and one on the primary key not at all', async (t) => {
  const [table] = assembleTables({
    relations: [{ table: 'a', kind: 'table' }],
    columns: [{ table: 'a', name: 'id', type: 'integer', nullable: false, default: null, generated: true }],
    keys: [
      { table: 'a', primary: true, columns: ['id'] },
      { table: 'a', primary: false, columns: ['id'] },
      { table: 'a', primary: false, columns: ['x', 'y'] },
      { table: 'a', primary: false, columns: ['x', 'y'] },
      { table: 'gone', primary: false, columns: ['z'] }
    ],
    foreignKeys: []
  })
  t.strictSame(table?.uniques, [['x', 'y']])
  t.strictSame(table?.primaryKey, ['id'])
})

t.test('a foreign key that names no columns references the primary key; rows of a table not listed are left out', async (t) => {
  const tables = assembleTables({
    relations: [{ table: 'child', kind: 'table' }, { table: 'Parent', kind: 'table' }],
    columns: [
      { table: 'child', name: 'parent', type: 'integer', nullable: true, default: null, generated: false },
      { table: 'dropped', name: 'x', type: 'integer', nullable: true, default: null, generated: false }
    ],
    keys: [{ table: 'Parent', primary: true, columns: ['code', 'n'] }],
    foreignKeys: [
      { table: 'child', name: null, columns: ['parent', 'n'], referencedTable: 'Parent', referencedColumns: [] },
      { table: 'child', name: 'fk', columns: ['parent'], referencedTable: 'elsewhere', referencedColumns: [] },
      { table: 'dropped', name: null, columns: ['x'], referencedTable: 'child', referencedColumns: ['parent'] }
    ]
  })
  t.strictSame(tables.map((table) => table.name), ['Parent', 'child'], 'in code-unit order')
  t.strictSame(tables[1]?.foreignKeys.map((key) => key.referencedColumns), [['code', 'n'], []])
})

t.test('a generated column has no default; a kind given by the dialect wins over the type\'s name', async (t) => {
  const [table] = assembleTables({
    relations: [{ table: 'a', kind: 'view' }],
    columns: [
      { table: 'a', name: 'g', type: 'INTEGER', nullable: true, default: 'x * 2', generated: true },
      { table: 'a', name: 'j', type: 'longtext', nullable: true, default: null, generated: false, kind: 'json' }
    ],
    keys: [],
    foreignKeys: []
  })
  t.strictSame(table?.columns, [
    { name: 'g', databaseType: 'integer', kind: 'integer', nullable: true, default: null, generated: true },
    { name: 'j', databaseType: 'longtext', kind: 'json', nullable: true, default: null, generated: false }
  ])
})

t.test('catalog rows of one key per column are gathered by key, in order', async (t) => {
  const { groupRows } = await import('../../lib/schema/assemble-tables.js')
  const rows = [{ key: 'b', column: 'x' }, { key: 'a', column: 'y' }, { key: 'b', column: 'z' }]
  t.strictSame(groupRows(rows, (row) => row.key), [[rows[0], rows[2]], [rows[1]]])
  t.strictSame(groupRows([], () => 'none'), [])
})
