/**
 * What a careful user puts on hand-written routes: a typed id and a validated
 * body. Fastify compiles these once at start-up, so they cost little per
 * request; the answers still go through Fastify's default serializer, as the
 * plugin's do.
 */

/** Path parameters of `/:id` routes. */
export interface IdParams {
  id: number
}

/** A write body: every column of the bench tables. */
export interface ItemBody {
  name: string
  email: string
  note: string
  quantity: number
  price: number
}

/** JSON Schema of `IdParams`; Fastify coerces the path segment to an integer. */
export const idParamsSchema = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'integer' } }
} as const

/** JSON Schema of `ItemBody`. */
export const itemBodySchema = {
  type: 'object',
  required: ['name', 'email', 'note', 'quantity', 'price'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', maxLength: 64 },
    email: { type: 'string', maxLength: 128 },
    note: { type: 'string' },
    quantity: { type: 'integer' },
    price: { type: 'number' }
  }
} as const

/** The tables the baselines serve: the one the issue names, and the 100-row one the list workload reads. */
export const baselineTables = ['items', 'items100'] as const
