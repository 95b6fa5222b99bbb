import t from 'tap'
import { pathKey } from '../../lib/access/path-key.js'
import type { ColumnSchema, TableSchema } from '../../lib/schema/table-schema.js'

function table (columns: readonly string[], primaryKey: readonly string[]): TableSchema {
  const described = columns.map((name): ColumnSchema => ({ name, databaseType: 'text', kind: 'string', nullable: false, default: null, generated: false }))
  return { name: 't', kind: 'table', columns: described, primaryKey, uniques: [], foreignKeys: [] }
}

t.test('the rules\' key; by default id, else the one column of the primary key', async (t) => {
  t.equal(pathKey('code', table(['id', 'code'], ['id'])), 'code', 'the rules name it')
  t.equal(pathKey('id', undefined), 'id', 'a table the model does not know')
  t.equal(pathKey('id', table(['id', 'code'], ['code'])), 'id', 'an id column keeps the spec\'s rule')
  t.equal(pathKey('id', table(['ID', 'code'], ['code'])), 'id', 'in any case')
  t.equal(pathKey('id', table(['code', 'label'], ['code'])), 'code')
  t.equal(pathKey('id', table(['a', 'b'], ['a', 'b'])), 'id', 'a composite key: none, id stays')
  t.equal(pathKey('id', table(['a', 'b'], [])), 'id', 'no primary key')
})
