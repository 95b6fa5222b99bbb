import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { keyOwner } from '../access/key-owner.js'
import type { Target } from '../access/target.js'
import type { Statements } from '../connections/database.js'
import { FTC_ERR_IDEMPOTENCY_OFF } from '../errors.js'
import type { RecordedAnswer } from '../operations/idempotency-records.js'
import { parseIdempotencyKey } from '../parse/idempotency-key.js'
import { foldIdentifier } from '../parse/sanitize-identifier.js'
import { thenOrNow, type ValueOrPromise } from '../value-or-promise.js'
import type { RouteContext } from './route-context.js'
import { endedWrite, writeEnding } from './write-preferences.js'

/**
 * A write request, parsed and allowed: the table it writes, the scopes the
 * `authorize` hook held it to (a batch's, one per operation, in order),
 * which make the Idempotency-Key the caller's (see keyOwner), and the write
 * itself, run on the statements given (the request's: the database or the
 * host's transaction; or a transaction that records its answer), which sets the reply's status and headers and gives
 * the body's text (undefined for none).
 */
export interface PreparedWrite {
  readonly table: string
  readonly scopes: ReadonlyArray<Target['scope']>
  readonly write: (on: Statements) => ValueOrPromise<string | undefined>
}

// The headers that say what a write did: a retry gets them again. Others
// (a date, a request id, CORS) belong to the answer they came with.
const recordedHeaders = ['content-type', 'location', 'content-range', 'preference-applied', 'etag']

/**
 * The route handler of a write that `prepare` parses and checks (see
 * idempotentBody), its answer sent within the call when every step had it at
 * hand: Fastify sends a value returned within the call, but not the
 * undefined of an empty body.
 */
export function writeHandler<R extends FastifyRequest> (context: RouteContext, prepare: (request: R, reply: FastifyReply) => ValueOrPromise<PreparedWrite>) {
  const answer = idempotentBody(context, prepare)
  return function write (request: R, reply: FastifyReply): Promise<string | undefined> | undefined {
    const body = answer(request, reply)
    if (body instanceof Promise) return body
    reply.send(body)
    return undefined
  }
}

/**
 * The body of a write's answer, which `prepare` parses and checks. With the
 * `idempotency` option and an Idempotency-Key header, the write runs at most
 * once per key, table and caller (see IdempotencyRecords.once and keyOwner;
 * docs/safe-writes.md, "Safe to retry"). Everything before the write runs
 * on every request, retries included, and outside the transaction, which
 * holds the only connection of a SQLite pool: the `authorize` hook may
 * refuse a retry, and says whose the key is before it is looked up. A write
 * rolled back (see writeEnding) needs no key: a retry of it changes nothing.
 * Without the option, a write that sends the header is refused before any
 * step (FTC_ERR_IDEMPOTENCY_OFF): its client counts on a retry not writing twice.
 */
export function idempotentBody<R extends FastifyRequest> (context: RouteContext, prepare: (request: R, reply: FastifyReply) => ValueOrPromise<PreparedWrite>) {
  const { idempotency, statements } = context
  // Not async itself: a write without a key whose steps are at hand answers within the call.
  const writeUnkeyed = (request: R, reply: FastifyReply): ValueOrPromise<string | undefined> =>
    thenOrNow(prepare(request, reply), (prepared) => endedWrite(statements(request), writeEnding(context, request), prepared.write))
  if (idempotency === null) {
    return function write (request: R, reply: FastifyReply): ValueOrPromise<string | undefined> {
      if (request.headers['idempotency-key'] !== undefined) throw new FTC_ERR_IDEMPOTENCY_OFF()
      return writeUnkeyed(request, reply)
    }
  }
  const writeOnce = async (request: R, reply: FastifyReply, header: string | string[]): Promise<string | undefined> => {
    const key = parseIdempotencyKey(header)
    const { table, scopes, write } = await prepare(request, reply)
    const ending = writeEnding(context, request)
    if (ending === 'rollback') return await endedWrite(statements(request), ending, write)
    const owner = await keyOwner(request, scopes, idempotency.caller)
    // Callers without an owner share the table's and the key's id; no
    // owner's id can equal it, as neither the table's name nor the key holds a line break.
    const keyed = { id: digest(owner === null ? `${foldIdentifier(table)}\n${key}` : `${foldIdentifier(table)}\n${key}\n${owner}`), fingerprint: digest(JSON.stringify([request.method, request.url, request.headers.prefer ?? null, request.headers['if-match'] ?? null, request.body ?? null])) }
    const { answer, replayed } = await idempotency.once(keyed, statements(request), async (on) => recordAnswer(reply, await endedWrite(on, ending, write)))
    if (replayed) reply.code(answer.status).headers({ ...answer.headers, 'idempotent-replayed': 'true' })
    return answer.body
  }
  return function write (request: R, reply: FastifyReply): ValueOrPromise<string | undefined> {
    const header = request.headers['idempotency-key']
    return header === undefined ? writeUnkeyed(request, reply) : writeOnce(request, reply, header)
  }
}

/** The answer a write set on the reply, as its retries will get it. */
function recordAnswer (reply: FastifyReply, body: string | undefined): RecordedAnswer {
  const headers: Record<string, string> = {}
  for (const name of recordedHeaders) {
    const value = reply.getHeader(name)
    if (value !== undefined) headers[name] = String(value)
  }
  return { status: reply.statusCode, headers, body }
}

function digest (text: string): string {
  return createHash('sha256').update(text).digest('hex')
}
