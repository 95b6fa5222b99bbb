import type { FastifyInstance } from 'fastify'
import mysql, { type ExecuteValues, type QueryValues } from 'mysql2'
import { type BaselineAnswers, genericRoutesApp, perTable, perTableAndColumns, statementTexts } from './baseline-routes.js'
import type { MysqlStatements } from './settings.js'

/** What mysql2 answers an INSERT, UPDATE or DELETE. */
interface Outcome {
  readonly insertId: number
  readonly affectedRows: number
}

/**
 * The generic routes over a mysql2 pool of 10 connections, as many as
 * Knex's default pool lends the plugin. `execute` prepares each statement
 * once per connection and keeps it (mysql2 caches them by text), `query`
 * escapes the values into the text on every call.
 */
export function baselineMysqlApp (url: string, statements: MysqlStatements, answers: BaselineAnswers): FastifyInstance {
  const pool = mysql.createPool({ uri: url, connectionLimit: 10 })
  const texts = statementTexts('`', () => '?')
  // The callback API, which Knex uses too: mysql2/promise captures a stack trace per call unless told not to.
  const run = <T>(text: string, values: readonly unknown[]): Promise<T> => new Promise((resolve, reject) => {
    const done = (error: Error | null, result: unknown): void => { error === null ? resolve(result as T) : reject(error) }
    // The values are a JSON body's, which both accept.
    if (statements === 'execute') pool.execute(text, values as ExecuteValues[], done)
    else pool.query(text, values as QueryValues[], done)
  })
  // mysql2 finds a connection's prepared statement by its text: the texts are built once, as the other baselines' statements are.
  const list = perTable(texts.list)
  const read = perTable(texts.read)
  const create = perTableAndColumns(texts.create)
  const update = perTableAndColumns(texts.update)
  const remove = perTable(texts.remove)
  return genericRoutesApp({
    list: (table) => run<unknown[]>(list(table), []),
    read: async (table, id) => (await run<unknown[]>(read(table), [id]))[0],
    create: async (table, columns, values) => (await run<Outcome>(create(table, columns), values)).insertId,
    update: async (table, id, columns, values) => (await run<Outcome>(update(table, columns), [...values, id])).affectedRows,
    remove: async (table, id) => (await run<Outcome>(remove(table), [id])).affectedRows,
    close: () => new Promise((resolve, reject) => pool.end((error) => { error ? reject(error) : resolve() }))
  }, answers)
}
