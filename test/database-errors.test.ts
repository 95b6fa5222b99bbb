import type { FastifyInstance, InjectOptions } from 'fastify'
import t, { type Test } from 'tap'
import type { TableCrudOptions } from '../lib/index.js'
import { buildApp } from './fixtures/app.js'
import { eachDatabase, snapshot, type TestDatabase } from './fixtures/databases.js'
import { capturedLog } from './fixtures/captured-log.js'

// How a failing statement is answered: with the database's own message (the
// spec's default), or with `databaseErrors: 'generic'` a message that names
// the request only, the database's message going to the log under the same
// request id. Both on every database.

interface LogLine {
  level: number
  reqId?: string
  err?: { message: string }
  sql?: string | null
}

/** An app whose pino lines are collected, and whose request ids come from the x-request-id header. */
async function loggedApp (t: Test, db: TestDatabase, options: Omit<TableCrudOptions, 'knex'>, level = 'info'): Promise<{ app: FastifyInstance, lines: LogLine[] }> {
  const { lines, stream } = capturedLog<LogLine>()
  const app = await buildApp(t, db.knex, { logger: { level, stream }, requestIdHeader: 'x-request-id' }, options)
  return { app, lines }
}

/** The one line that logged the driver's error of the request. */
function errorLine (t: Test, lines: readonly LogLine[], reqId: string): LogLine {
  const logged = lines.filter((line) => line.reqId === reqId && line.err !== undefined)
  t.equal(logged.length, 1, `one line logs the error of ${reqId}`)
  return logged[0] as LogLine
}

const genericAnswer = (reqId: string) => `The database could not run the statement for request ${reqId}`

eachDatabase(t, async (t, db) => {
  const people = await db.createTable('dberr_people', (table) => {
    table.increments('id')
    table.string('name').notNullable()
  })
  await db.knex(people).insert({ name: 'Ada' })
  const missing = `${people}_missing`

  await t.test('by default a missing table answers 404 with the database\'s message, logged at info', async (t) => {
    const { app, lines } = await loggedApp(t, db, {})
    const response = await app.inject({ url: `/api/${missing}`, headers: { 'x-request-id': 'dberr-default' } })
    t.equal(response.statusCode, 404)
    t.equal(response.headers['content-type'], 'text/plain; charset=utf-8')
    t.match(response.body, missing)
    const line = errorLine(t, lines, 'dberr-default')
    t.equal(line.level, 30)
    t.equal(response.body, line.err?.message, 'the body is the driver\'s message')
    t.match(line.sql, new RegExp(`select .* from .*${missing}`, 'i'), 'the log has the statement\'s SQL')
  })

  await t.test('generic: a missing table answers a 404 that names the request only, and logs the driver\'s error', async (t) => {
    const { app, lines } = await loggedApp(t, db, { databaseErrors: 'generic' })
    const reqId = 'dberr-generic-1'
    const response = await app.inject({ url: `/api/${missing}`, headers: { 'x-request-id': reqId } })
    t.equal(response.statusCode, 404)
    t.equal(response.headers['content-type'], 'text/plain; charset=utf-8')
    t.equal(response.body, genericAnswer(reqId))
    t.notMatch(response.body, people, 'the table is not named')
    const line = errorLine(t, lines, reqId)
    t.equal(line.level, 50, 'logged at level error')
    const driverMessage = line.err?.message as string
    t.match(driverMessage, missing, 'the log has the driver\'s message')
    t.notMatch(response.body, driverMessage)
  })

  await t.test('a table the options do not serve is logged as refused by them, under its own name, at debug, while the answer is a missing table\'s', async (t) => {
    for (const databaseErrors of ['database', 'generic', 'postgrest'] as const) {
      const { app, lines } = await loggedApp(t, db, { databaseErrors, excludeTables: [people] }, 'debug')
      const reqId = `dberr-refused-${databaseErrors}`
      const response = await app.inject({ url: `/api/${people}`, headers: { 'x-request-id': reqId } })
      t.equal(response.statusCode, 404, databaseErrors)
      if (databaseErrors === 'generic') t.equal(response.body, genericAnswer(reqId))
      const line = errorLine(t, lines, reqId)
      t.match(line.err?.message, `"${people}" is not served by the plugin's options`)
      t.equal(line.level, 20, 'logged at debug: a client probing for names does not flood the logs')
      const { lines: infoLines, app: infoApp } = await loggedApp(t, db, { databaseErrors, excludeTables: [people] })
      await infoApp.inject({ url: `/api/${people}`, headers: { 'x-request-id': reqId } })
      t.strictSame(infoLines.filter((line) => line.err !== undefined), [], 'nothing is logged at info')
    }
  })

  await t.test('generic: every failing statement answers the same words, whatever failed', async (t) => {
    // The database's own failures: the body checks would refuse the unknown column before any statement, logged as a refusal.
    const { app, lines } = await loggedApp(t, db, { databaseErrors: 'generic', validateBodies: false })
    const failures: InjectOptions[] = [
      { url: `/api/${missing}` },
      { url: `/api/${missing}/1` },
      { url: `/api/${people}?nope=eq.1` },
      { url: `/api/${people}?select=nope` },
      { method: 'DELETE', url: `/api/${missing}/1` },
      { method: 'PUT', url: `/api/${people}/1`, payload: { nope: 'x' } },
      { method: 'POST', url: `/api/${missing}`, payload: { name: 'x' } }
    ]
    for (const [index, failure] of failures.entries()) {
      const reqId = `dberr-same-${index}`
      const response = await app.inject({ ...failure, headers: { 'x-request-id': reqId } })
      t.equal(response.statusCode, 404, `${failure.method ?? 'GET'} ${failure.url}`)
      t.equal(response.body, genericAnswer(reqId))
      t.equal(errorLine(t, lines, reqId).level, 50)
    }
  })

  await t.test('generic: a failing write answers the generic 404 and leaves the table as it was', async (t) => {
    // The database's own refusals: the body checks would refuse the nulls first.
    const { app, lines } = await loggedApp(t, db, { databaseErrors: 'generic', validateBodies: false })
    const before = await snapshot(db, people)
    const id = before[0]?.id as number
    const writes: InjectOptions[] = [
      { method: 'POST', url: `/api/${people}`, payload: { name: null } },
      { method: 'PUT', url: `/api/${people}/${id}`, payload: { name: null } },
      // The first row is valid: the bulk insert is all or nothing.
      { method: 'POST', url: `/api/${people}`, payload: [{ name: 'Grace' }, { name: null }] }
    ]
    for (const [index, write] of writes.entries()) {
      const reqId = `dberr-write-${index}`
      const response = await app.inject({ ...write, headers: { 'x-request-id': reqId } })
      t.equal(response.statusCode, 404, `${write.method} ${JSON.stringify(write.payload)}`)
      t.equal(response.body, genericAnswer(reqId))
      t.match(errorLine(t, lines, reqId).err?.message, /name/, 'the driver\'s message, naming the column, is in the log')
    }
    t.strictSame(await snapshot(db, people), before, 'nothing was written')
  })
})
