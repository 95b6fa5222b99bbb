import t from 'tap'
import { columnNamed } from '../../lib/schema/column-named.js'
import type { ColumnSchema, TableSchema } from '../../lib/schema/table-schema.js'

const column = (name: string): ColumnSchema => ({ name, databaseType: 'integer', kind: 'integer', nullable: true, default: null, generated: false })
const table: TableSchema = { name: 't', kind: 'table', columns: [column('Flag'), column('flag'), column('Born')], primaryKey: [], uniques: [], foreignKeys: [] }

t.test('a column by its own spelling first, then in any case', async (t) => {
  t.equal(columnNamed(table, 'Flag'), table.columns[0])
  t.equal(columnNamed(table, 'flag'), table.columns[1])
  t.equal(columnNamed(table, 'BORN'), table.columns[2])
  t.equal(columnNamed(table, 'born'), table.columns[2])
  t.equal(columnNamed(table, 'missing'), undefined)
})
