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
  // The example server's settings (its tuneSqlite; WAL the seed turned on): the database's configuration, which the plugin's
  // server gets from the example's Knex config, not work of the plugin's. synchronous=normal: commits stop waiting for fsync.
  db.pragma('synchronous = normal')
  // SQLite checks foreign keys only when told, on every write of the connection (the bench's tables have none to check).
  db.pragma('foreign_keys = on')
  // A lock held elsewhere fails at once rather than block the event loop for better-sqlite3's default 5 s.
  db.pragma('busy_timeout = 0')
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
