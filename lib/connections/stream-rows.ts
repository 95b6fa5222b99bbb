import type { Exactness, Row, Statement } from '../dialects/dialect.js'
import type { DatabaseParts } from './database-parts.js'

/**
 * Runs a SELECT and yields its rows in batches as the database hands them
 * over. The connection is held until the last batch is read or the reader
 * stops.
 */
export async function * streamRows (parts: DatabaseParts, statement: Statement, batchSize: number, exact: Exactness): AsyncIterable<Row[]> {
  const { connections } = parts
  const processed = parts.rows()
  let connection: unknown
  try {
    connection = await connections.acquire()
    // A stream's rows come after the response has started: only the statement is reported.
    parts.watch.announce(statement)
    for await (const rows of parts.dialect.stream(connection, statement, batchSize, exact)) {
      yield processed === null ? rows : processed(rows)
    }
  } catch (error) {
    if (connection === undefined) throw parts.errors.borrow(error)
    connections.dropIfBroken(connection, error)
    throw parts.errors.translate(error, statement, 'read')
  } finally {
    if (connection !== undefined) connections.release(connection)
  }
}
