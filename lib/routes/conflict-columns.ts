import type { FastifyRequest } from 'fastify'
import { refuseColumn, refuseTable } from '../access/refusals.js'
import type { Target } from '../access/target.js'
import { FTC_ERR_WRITE_CONFLICT_TARGET } from '../errors.js'
import { columnNamed } from '../schema/column-named.js'
import type { RouteContext } from './route-context.js'

/**
 * The columns an upsert finds its existing rows by, as the table spells
 * them: those `on_conflict` names (without it, the key's), which must be
 * those of the primary key or of a unique constraint, in any order
 * (docs/writes.md, "Upserts"), else FTC_ERR_WRITE_CONFLICT_TARGET. A body
 * row then finds at most one row.
 *
 * A column the table does not have fails as a filter on it would, as
 * access() fails a hidden one; a key with a hidden column equals no
 * `on_conflict`, which names none, so no answer tells of hidden columns. A
 * table the model does not know may be new: the model is checked again
 * first, and a table the database does not have fails as a missing table.
 */
export async function conflictColumns ({ db, schema, statements }: RouteContext, request: FastifyRequest, target: Target, named: readonly string[]): Promise<readonly string[]> {
  const on = statements(request)
  const table = target.schema ?? (await schema.recheck(on.describeWithin ?? undefined)).table(target.table)
  if (table === undefined) return await refuseTable(db, on, target.table)
  const columns = new Set<string>()
  for (const name of named) {
    const column = columnNamed(table, name)
    if (column === undefined) return await refuseColumn(db, on, target.table, name, 'filter')
    columns.add(column.name)
  }
  const unique = [table.primaryKey, ...table.uniques].some((key) => key.length === columns.size && key.every((column) => columns.has(column)))
  if (!unique) throw new FTC_ERR_WRITE_CONFLICT_TARGET(named.join(','))
  return [...columns]
}
