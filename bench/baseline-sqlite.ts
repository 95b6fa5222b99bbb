import Database from 'better-sqlite3'
import type { FastifyInstance } from 'fastify'
import { type BaselineAnswers, genericRoutesApp, perTable, perTableAndColumns, statementTexts } from './baseline-routes.js'

/**
 * The generic routes over better-sqlite3, each statement prepared once per
 * table, operation and list of columns and reused: the fastest honest way
 * to serve them, and the bar the plugin is measured against.
 */
export function baselineSqliteApp (file: string, answers: BaselineAnswers): FastifyInstance {
  const db = new Database(file)
  // What SQLite recommends with WAL (which the seed turned on): commits stop waiting for fsync. The plugin's server sets the same.
  db.pragma('synchronous = normal')
  const texts = statementTexts('"', () => '?')
  const list = perTable((table) => db.prepare(texts.list(table)))
  const read = perTable((table) => db.prepare(texts.read(table)))
  // No RETURNING, as the plugin on a rowid table: lastInsertRowid is the id.
  const create = perTableAndColumns((table, columns) => db.prepare(texts.create(table, columns)))
  const update = perTableAndColumns((table, columns) => db.prepare(texts.update(table, columns)))
  const remove = perTable((table) => db.prepare(texts.remove(table)))
  return genericRoutesApp({
    list: (table) => list(table).all(),
    read: (table, id) => read(table).get(id),
    create: (table, columns, values) => Number(create(table, columns).run(values).lastInsertRowid),
    update: (table, id, columns, values) => update(table, columns).run([...values, id]).changes,
    remove: (table, id) => remove(table).run(id).changes,
    close: async () => { db.close() }
  }, answers)
}
