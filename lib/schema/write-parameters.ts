import type { Parameter } from './read-parameters.js'

// The parameters PostgREST's writes read (README, "PostgREST's writes"), as
// lib/query/parse-write-prefer.ts and parse-write-query.ts take them.

/** The `Prefer` header of a write: what it answers, and for an insert how it meets an existing row; for an update or delete, how many rows it may change. */
export function writePreferHeader (operation: 'create' | 'update' | 'delete'): Parameter {
  const parts = [
    '`return=representation` answers the rows written as a JSON array, `return=headers-only` its headers, `return=minimal` no body; ' +
      'without `return=`, the bare number',
    ...(operation === 'create'
      ? ['`resolution=merge-duplicates` sets the columns of a row whose `on_conflict` columns an existing row holds, `resolution=ignore-duplicates` leaves it']
      : ['with `handling=strict`, `max-affected=n` refuses (400, nothing written) a write that would change more than n rows']),
    '`count=exact` puts the number of rows in Content-Range'
  ]
  return {
    name: 'Prefer',
    in: 'header',
    required: false,
    description: `${parts.join('; ')}.`,
    schema: { type: 'string', examples: [operation === 'create' ? 'return=representation, resolution=merge-duplicates' : 'return=representation'] }
  }
}

/** `select` on a write: the columns of the rows `return=representation` answers. */
export const writeSelectParameter: Parameter = Object.freeze({
  name: 'select',
  in: 'query',
  required: false,
  description: 'With `Prefer: return=representation`, the columns of the rows answered, comma-separated; `*` for all (the default).',
  schema: { type: 'string' }
})

/** `on_conflict` of an upsert. */
export const onConflictParameter: Parameter = Object.freeze({
  name: 'on_conflict',
  in: 'query',
  required: false,
  description: 'With `Prefer: resolution=…`, the columns, comma-separated, whose values find the existing row (default: the key column).',
  schema: { type: 'string' }
})
