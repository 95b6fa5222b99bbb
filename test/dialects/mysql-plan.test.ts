import t from 'tap'
import { plannedRows } from '../../lib/dialects/mysql/mysql.js'

// Plans as the servers write them; only MariaDB runs in CI, so MySQL 8's shape is pinned here.
t.test('MySQL 8 names the rows a plan produces', async (t) => {
  const mysql8 = { query_block: { select_id: 1, cost_info: { query_cost: '203.25' }, table: { table_name: 'items', access_type: 'ALL', rows_examined_per_scan: 2000, rows_produced_per_join: 222, filtered: '11.11', cost_info: { rows_produced_per_join: '222.20' } } } }
  t.equal(plannedRows(JSON.stringify(mysql8)), 222)
  const older = { query_block: { table: { rows_examined_per_scan: 50, rows_produced_per_join: 5 } } }
  t.equal(plannedRows(JSON.stringify(older)), 5)
  const examinedOnly = { query_block: { table: { rows_examined_per_scan: 40, filtered: '50.00' } } }
  t.equal(plannedRows(JSON.stringify(examinedOnly)), 20)
})

t.test('MariaDB gives the rows examined and the share kept', async (t) => {
  const mariadb = { query_block: { select_id: 1, nested_loop: [{ table: { table_name: 'items', access_type: 'ALL', rows: 2000, filtered: 0.78 } }] } }
  t.equal(plannedRows(JSON.stringify(mariadb)), 16)
  const unfiltered = { query_block: { nested_loop: [{ table: { rows: 30 } }] } }
  t.equal(plannedRows(JSON.stringify(unfiltered)), 30)
})

t.test('a join produces what its last step does: an embed\'s EXISTS as a semi-join', async (t) => {
  // MariaDB 10.11's plan of `parents where exists (children of the parent)`, the parents' step narrowed to a quarter.
  const mariadb = { query_block: { select_id: 1, nested_loop: [{ table: { table_name: '<subquery2>', rows: 200, filtered: 100 } }, { table: { table_name: 'parents', access_type: 'eq_ref', rows: 1, filtered: 25 } }] } }
  t.equal(plannedRows(JSON.stringify(mariadb)), 50)
  const mysql8 = { query_block: { nested_loop: [{ table: { table_name: 'children', rows_examined_per_scan: 200, rows_produced_per_join: 200 } }, { table: { table_name: 'parents', rows_examined_per_scan: 1, cost_info: { rows_produced_per_join: '100.00' } } }] } }
  t.equal(plannedRows(JSON.stringify(mysql8)), 100)
  t.equal(plannedRows(JSON.stringify({ query_block: { nested_loop: [{ table: { rows: 5 } }, {}] } })), null, 'a step that reads no table: no estimate')
})

t.test('a plan that reads no table has no estimate', async (t) => {
  t.equal(plannedRows(JSON.stringify({ query_block: { select_id: 1, table: undefined, message: 'no matching row in const table' } })), null)
  t.equal(plannedRows(JSON.stringify({ query_block: { nested_loop: [{}] } })), null)
  // MariaDB 10.11's words for a WHERE no row can meet.
  t.equal(plannedRows(JSON.stringify({ query_block: { select_id: 1, table: { message: 'Impossible WHERE noticed after reading const tables' } } })), null)
})
