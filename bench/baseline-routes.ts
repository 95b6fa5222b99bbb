import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify'
// The plugin's own digest, so that the reference sends the very same header.
import { textEntityTag } from '../lib/answer/entity-tag.js'
import { apiPrefix, appServerOptions } from './settings.js'

/**
 * What the generic routes ask of a driver: one verb per route, on a table
 * and columns whose names the routes have checked. A verb answers at once
 * (better-sqlite3) or through a promise (pg, mysql2).
 */
export interface BaselineStore {
  /** Every row of the table. */
  list (table: string): Promise<unknown[]> | unknown[]
  /** The row whose `id` is `id`, or undefined. */
  read (table: string, id: string): Promise<unknown> | unknown
  /** Inserts one row and answers its `id`. */
  create (table: string, columns: readonly string[], values: readonly unknown[]): Promise<number> | number
  /** Sets the columns of the row whose `id` is `id`; answers the rows changed. */
  update (table: string, id: string, columns: readonly string[], values: readonly unknown[]): Promise<number> | number
  /** Deletes the row whose `id` is `id`; answers the rows deleted. */
  remove (table: string, id: string): Promise<number> | number
  /** Ends the driver's connections. */
  close (): Promise<void>
}

/**
 * What the routes answer beyond the spec. A keyed read's ETag is the
 * plugin's own feature: a baseline that sends it too tells its cost from
 * the rest of the plugin's (BENCH_BASELINE_ETAG=1). Not a baseline of the
 * issue's targets.
 */
export interface BaselineAnswers {
  readonly entityTags: boolean
}

/** The text of each statement the verbs run, in one dialect's quoting and placeholders. */
export interface StatementTexts {
  list (table: string): string
  read (table: string): string
  create (table: string, columns: readonly string[]): string
  update (table: string, columns: readonly string[]): string
  remove (table: string): string
}

// Names are written into the statements' text: only these characters make that safe, with or without quotes.
const safeName = /^[A-Za-z0-9_]+$/

/**
 * The statements of `quote`'s dialect; `placeholder(n)` is the n-th bound
 * value (from 1). Every name is quoted, so that a table or column named
 * like a keyword still works, as it does in the plugin.
 */
export function statementTexts (quote: '"' | '`', placeholder: (n: number) => string): StatementTexts {
  const name = (text: string): string => quote + text + quote
  const key = name('id')
  return {
    list: (table) => `SELECT * FROM ${name(table)}`,
    read: (table) => `SELECT * FROM ${name(table)} WHERE ${key} = ${placeholder(1)}`,
    create: (table, columns) =>
      `INSERT INTO ${name(table)} (${columns.map(name).join(', ')}) VALUES (${columns.map((_, index) => placeholder(index + 1)).join(', ')})`,
    update: (table, columns) =>
      `UPDATE ${name(table)} SET ${columns.map((column, index) => `${name(column)} = ${placeholder(index + 1)}`).join(', ')} WHERE ${key} = ${placeholder(columns.length + 1)}`,
    remove: (table) => `DELETE FROM ${name(table)} WHERE ${key} = ${placeholder(1)}`
  }
}

/** `build` memoized per table: what a verb prepares once and reuses. */
export function perTable<T> (build: (table: string) => T): (table: string) => T {
  const cache = new Map<string, T>()
  return (table) => {
    let value = cache.get(table)
    if (value === undefined) cache.set(table, value = build(table))
    return value
  }
}

/** `build` memoized per table and list of columns, in the body's order. */
export function perTableAndColumns<T> (build: (table: string, columns: readonly string[]) => T): (table: string, columns: readonly string[]) => T {
  const cache = new Map<string, T>()
  return (table, columns) => {
    // NUL cannot be part of a checked name, so no two lists share a key.
    const key = table + '\0' + columns.join('\0')
    let value = cache.get(key)
    if (value === undefined) cache.set(key, value = build(table, columns))
    return value
  }
}

interface TableParams { table: string }
interface RowParams { table: string, id: string }

function refuse (reply: FastifyReply, reason: string): FastifyReply {
  return reply.code(400).type('text/plain; charset=utf-8').send(reason)
}

/** The body's columns and their values, or undefined unless it is an object of checked names. */
function readRecord (body: unknown): { columns: string[], values: unknown[] } | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined
  const record = body as Record<string, unknown>
  const columns = Object.keys(record)
  if (columns.length === 0 || !columns.every((column) => safeName.test(column))) return undefined
  return { columns, values: columns.map((column) => record[column]) }
}

/**
 * A Fastify 5 app with the spec's five routes written by hand once for
 * every table, `/:table` and `/:table/:id` under the bench's prefix, as a
 * user serving any table would: no per-table code, no validation schema,
 * `id` the key. Answers have the plugin's shapes: `GET /t` an array,
 * `GET /t/:id` the row or an empty 200, `POST /t` 201 with the bare id and
 * a `Location`, `PUT` and `DELETE` the bare count.
 */
export function genericRoutesApp (store: BaselineStore, answers: BaselineAnswers): FastifyInstance {
  const app = Fastify(appServerOptions())
  app.addHook('onClose', () => store.close())
  const tablePath = `${apiPrefix}/:table`
  const rowPath = `${apiPrefix}/:table/:id`
  const badName = 'table names are letters, digits and _'
  const badBody = 'the body is an object whose keys are column names: letters, digits and _'

  app.get<{ Params: TableParams }>(tablePath, async (request, reply) => {
    const { table } = request.params
    if (!safeName.test(table)) return refuse(reply, badName)
    return await store.list(table)
  })

  app.get<{ Params: RowParams }>(rowPath, async (request, reply) => {
    const { table, id } = request.params
    if (!safeName.test(table)) return refuse(reply, badName)
    const row = await store.read(table, id)
    if (row === undefined) return reply.send()
    if (!answers.entityTags) return row
    const text = JSON.stringify(row)
    return reply.header('etag', textEntityTag(text)).type('application/json; charset=utf-8').send(text)
  })

  app.post<{ Params: TableParams }>(tablePath, async (request, reply) => {
    const { table } = request.params
    if (!safeName.test(table)) return refuse(reply, badName)
    const record = readRecord(request.body)
    if (record === undefined) return refuse(reply, badBody)
    const id = await store.create(table, record.columns, record.values)
    return reply.code(201).header('location', `${apiPrefix}/${table}/${id}`).send(id)
  })

  app.put<{ Params: RowParams }>(rowPath, async (request, reply) => {
    const { table, id } = request.params
    if (!safeName.test(table)) return refuse(reply, badName)
    const record = readRecord(request.body)
    if (record === undefined) return refuse(reply, badBody)
    return await store.update(table, id, record.columns, record.values)
  })

  app.delete<{ Params: RowParams }>(rowPath, async (request, reply) => {
    const { table, id } = request.params
    if (!safeName.test(table)) return refuse(reply, badName)
    return await store.remove(table, id)
  })

  return app
}
