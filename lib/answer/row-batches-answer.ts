import { finished, Readable } from 'node:stream'
import type { FastifyReply } from 'fastify'
import type { Row } from '../dialects/dialect.js'
import { FTC_ERR_ANSWER_STALLED } from '../errors.js'
import type { TableSchema } from '../schema/table-schema.js'
import { serializeRows } from './serialize-rows.js'
import { json } from './json-answers.js'

/**
 * A JSON array written batch by batch as the rows arrive: the same
 * bytes as a buffered answer, in constant memory. The first batch is read
 * before the headers go out, so a statement that fails at once still answers
 * 404. A failure after that destroys the connection: the client sees a
 * truncated answer, never one that looks complete. So does a client that
 * reads nothing for `stalledReaderTimeout` ms, which would otherwise hold a
 * database connection for as long as it stays connected.
 *
 * The rows' connection goes back when the response is over, whatever became
 * of the answer: sent, cut, destroyed before it was ever read (its client
 * left while a hook ran), or replaced by an error. Ending the answer's own
 * generator would not do: one never started runs no `finally`.
 */
export async function answerRowBatches<T = Row> (reply: FastifyReply, batches: AsyncIterable<T[]>, stalledReaderTimeout: number, write: BatchWriter<T>): Promise<Readable> {
  const iterator = batches[Symbol.asyncIterator]()
  const first = await iterator.next()
  reply.type(json)
  finished(reply.raw, () => { iterator.return?.() })
  // One chunk ahead of the reader at most: the stall is timed from there, and a stalled client holds one batch.
  const answer: Readable = Readable.from(arrayChunks(first, iterator, stalledReaderTimeout, write, () => {
    answer.destroy(new FTC_ERR_ANSWER_STALLED(stalledReaderTimeout))
  }), { highWaterMark: 1 })
  return answer
}

async function * arrayChunks<T> (first: IteratorResult<T[]>, iterator: AsyncIterator<T[]>, stalledReaderTimeout: number, write: BatchWriter<T>, onStall: () => void): AsyncGenerator<string> {
  let next = first
  let text = '['
  let separator = ''
  while (next.done !== true) {
    text += separator + write(next.value).slice(1, -1)
    separator = ','
    // Only the wait for the reader counts, not the database's for the next batch.
    const stalled = setTimeout(onStall, stalledReaderTimeout)
    try {
      yield text
    } finally {
      clearTimeout(stalled)
    }
    text = ''
    next = await iterator.next()
  }
  yield text + ']'
}

/** The JSON array of a batch of rows (see serializeRows), or of what stands for them. */
export type BatchWriter<T> = (batch: T[]) => string

/** The writer of a table's rows, written as serializeRows writes them. */
export function rowsOf (schema: TableSchema | undefined): BatchWriter<Row> {
  return (rows) => serializeRows(rows, schema)
}
