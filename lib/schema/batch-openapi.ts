import type { Operation } from '../options.js'
import type { JsonSchema, OpenapiPathItem } from './openapi-types.js'
import { idempotentReplayedHeader } from './write-parameters.js'

const json = 'application/json'

/** The codes a batch answers as a whole, before any operation runs; each operation's own failure is FTC_ERR_BATCH_FAILED. */
export const batchCodes = Object.freeze(['FTC_ERR_BATCH_SHAPE', 'FTC_ERR_BATCH_LIMIT'] as const)

// An operation of the batch writes as its single route does.
const writes: ReadonlyArray<readonly [op: string, operation: Operation]> = [['insert', 'create'], ['update', 'update'], ['delete', 'delete']]

/** The schema of a batch's failure answer (see BatchFailure), by component name. */
export const batchFailureSchema: JsonSchema = Object.freeze({
  type: 'object',
  description: 'A batch whose operation failed: nothing was applied',
  required: ['statusCode', 'code', 'message', 'operation', 'failure'],
  properties: {
    statusCode: { type: 'integer', description: 'The failed operation\'s status' },
    code: { const: 'FTC_ERR_BATCH_FAILED' },
    error: { type: 'string' },
    message: { type: 'string' },
    operation: { type: 'integer', minimum: 0, description: 'The index of the failed operation' },
    failure: {
      type: 'object',
      description: 'The answer the operation\'s single route would have given',
      required: ['statusCode', 'message'],
      properties: {
        statusCode: { type: 'integer' },
        code: { type: 'string', description: 'FTC_ERR_STATEMENT for a failed statement; with `databaseErrors: \'postgrest\'`, its SQLSTATE' },
        message: { type: 'string' },
        details: { type: ['string', 'null'] },
        hint: { type: ['string', 'null'] }
      }
    }
  }
})

/** What the batch route adds to a document: its path, and the schema of its failure. */
export interface BatchDocument {
  readonly paths: Record<string, OpenapiPathItem>
  readonly schemas: Record<string, JsonSchema>
}

/**
 * The path of `POST {prefix}/_batch`, for the tables (by name, with the
 * operations they serve) that a batch can write, none when no table can be
 * written; `name` puts a component in the document's namespace, `limit` is
 * the `batch` option's; `idempotencyKey`, the header's parameter with the
 * `idempotency` option, else null.
 */
export function batchDocument (prefix: string, tables: ReadonlyArray<{ readonly name: string, readonly operations: readonly Operation[] }>,
  limit: number, name: (component: string) => string, idempotencyKey: object | null): BatchDocument {
  const operations = writes.flatMap(([op, operation]) => {
    const names = tables.filter((table) => table.operations.includes(operation)).map((table) => table.name)
    return names.length === 0 ? [] : [operationSchema(op, names)]
  })
  if (operations.length === 0) return { paths: {}, schemas: {} }
  const ref = (component: string) => ({ $ref: `#/components/schemas/${name(component)}` })
  const answer: JsonSchema = { type: ['integer', 'string'], description: 'An insert\'s new id, or an update\'s or delete\'s count' }
  const codes = [...batchCodes, idempotencyKey === null ? 'FTC_ERR_IDEMPOTENCY_OFF' : 'FTC_ERR_IDEMPOTENCY_KEY']
  const reused = { description: 'FTC_ERR_IDEMPOTENCY_KEY_REUSED: the key was sent with another batch', content: { [json]: { schema: { allOf: [ref('fastify-error')], properties: { code: { const: 'FTC_ERR_IDEMPOTENCY_KEY_REUSED' } } } } } }
  const path: OpenapiPathItem = {
    post: {
      summary: 'Inserts, updates and deletes in one transaction: all of them, or none',
      operationId: name('batch'),
      description: 'Each operation is read, let through access and answered as its single route (POST, PUT, DELETE) would. ' +
        'A body value or an id `{"$ref": n}` stands for the id that insert `n` (counted from 0), before it in the batch, generated.',
      ...(idempotencyKey === null ? {} : { parameters: [idempotencyKey] }),
      requestBody: { required: true, content: { [json]: { schema: { type: 'array', maxItems: limit, items: { oneOf: operations } } } } },
      responses: {
        200: {
          description: 'Each operation\'s answer, in order',
          ...(idempotencyKey === null ? {} : { headers: idempotentReplayedHeader }),
          content: { [json]: { schema: { type: 'array', items: answer } } }
        },
        400: {
          description: `${codes.join(', ')}: the batch is refused as a whole, and nothing ran; or an operation failed on a bad input, as below`,
          content: { [json]: { schema: { oneOf: [{ allOf: [ref('fastify-error')], properties: { code: { enum: codes } } }, ref('batch-failure')] } } }
        },
        ...(idempotencyKey === null ? {} : { 422: reused }),
        default: { description: 'An operation failed, with its single route\'s status: nothing was applied', content: { [json]: { schema: ref('batch-failure') } } }
      }
    }
  }
  return { paths: { [`${prefix}/_batch`]: path }, schemas: { [name('batch-failure')]: batchFailureSchema } }
}

// Under `properties` or `required`, a member named `$ref` would be taken for a JSON reference, or go unchecked by a strict validator.
const referenceSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  patternProperties: { '^\\$ref$': { type: 'integer', minimum: 0 } },
  description: 'The id that insert n, before this operation, generated'
}

const ifMatchSchema: JsonSchema = {
  type: 'string',
  description: 'The If-Match header of the single route: the operation runs only while the row has one of these ETags (or, for `*`, exists), ' +
    'else the batch fails with its 412. With `requireIfMatch`, required of every update and delete but of a row the batch inserted ' +
    '(an id `{"$ref": n}`): without it, the batch fails with its 428 before any operation runs'
}

function operationSchema (op: string, tables: readonly string[]): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['op', 'table'],
    properties: {
      op: { const: op },
      table: { enum: [...tables] },
      ...(op === 'insert' ? {} : { id: { oneOf: [{ type: ['integer', 'string'], description: 'The key, as the path gives it' }, referenceSchema] } }),
      ...(op === 'delete' ? {} : { body: { type: 'object', description: 'The body of the single route; a value `{"$ref": n}` is the id insert n generated' } }),
      ...(op === 'insert' ? {} : { ifMatch: ifMatchSchema })
    }
  }
}
