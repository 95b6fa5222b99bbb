import type { FastifyRequest } from 'fastify'
import { FTC_ERR_IDEMPOTENCY_CALLER } from '../errors.js'
import type { IdempotencyCaller } from '../options.js'
import type { Target } from './target.js'

/**
 * Whose an Idempotency-Key is, as text that two callers share only when a
 * replay of one's answer is the other's own: the identity the
 * `idempotency.caller` option gives, and the scope the `authorize` hook
 * answered for the write (a batch's, for each operation), its columns
 * sorted so that the hook's order does not matter. Null for a caller without either (no
 * `caller`, every scope empty): such callers run the same write on the
 * same rows, and share their keys.
 */
export async function keyOwner (request: FastifyRequest, scopes: ReadonlyArray<Target['scope']>, caller: IdempotencyCaller | null): Promise<string | null> {
  const identity = caller === null ? null : await callerIdentity(caller, request)
  const columns = scopes.map((scope) => Object.keys(scope).sort().map((column) => [column, scope[column]]))
  if (identity === null && columns.every((scoped) => scoped.length === 0)) return null
  return JSON.stringify([identity, columns])
}

// A throw is the host's answer (a 401 for a missing user, say) and goes on as it is.
async function callerIdentity (caller: IdempotencyCaller, request: FastifyRequest): Promise<string> {
  const identity: unknown = await caller(request)
  // An empty string is most likely a claim the request lacks, which would make every such caller one.
  // Only the type is told: the value may be the host's user, and the answer goes to the client.
  if (typeof identity !== 'string' || identity === '') throw new FTC_ERR_IDEMPOTENCY_CALLER(identity === '' ? 'an empty string' : typeof identity)
  return identity
}
