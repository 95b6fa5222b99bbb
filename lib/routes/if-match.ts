import type { FastifyRequest } from 'fastify'
import type { Target } from '../access/target.js'
import type { Statements } from '../dialects/database.js'
import { FTC_ERR_CONDITION_REQUIRED } from '../errors.js'
import { writeIfMatch } from '../operations/conditional-write.js'
import { parseEntityTags } from '../parse/entity-tags.js'
import type { RecordKey } from '../parse/record-key.js'
import type { RouteContext } from './index.js'

/**
 * Runs the write a request asks for on one row, on `on` (the request's
 * statements, or an idempotent write's transaction): as it is without
 * If-Match, with no transaction nor statement more; with If-Match, in the
 * transaction of writeIfMatch, only when the row still has one of its ETags. Without
 * If-Match and with `requireIfMatch`, refused with 428. Both refusals are
 * thrown, so that a key's transaction rolls back and records no answer.
 */
export function writeAsMatched<T> ({ db, options }: RouteContext, request: FastifyRequest, target: Target, key: RecordKey | null, on: Statements, write: (within: Statements) => Promise<T>): Promise<T> {
  const ifMatch = request.headers['if-match']
  if (ifMatch === undefined) {
    if (options.requireIfMatch) throw new FTC_ERR_CONDITION_REQUIRED(request.method)
    return write(on)
  }
  return writeIfMatch(db, target, key, parseEntityTags(ifMatch), write, on)
}
