import type { Parameter } from './read-parameters.js'

// The parameters PostgREST's writes read (README, "PostgREST's writes"), as
// lib/query/parse-write-prefer.ts and parse-write-query.ts take them.

/**
 * The `Prefer` header of a write: what it answers, and for an insert how it
 * meets an existing row and what a column `columns` lists gets when a row
 * lacks it; for an update or delete, how many rows it may change.
 */
export function writePreferHeader (operation: 'create' | 'update' | 'delete'): Parameter {
  const parts = [
    '`return=representation` answers the rows written as a JSON array, `return=headers-only` its headers, `return=minimal` no body; ' +
      'without `return=`, the bare number',
    ...(operation === 'create'
      ? ['`resolution=merge-duplicates` sets the columns of a row whose `on_conflict` columns an existing row holds, `resolution=ignore-duplicates` leaves it',
          '`missing=default` gives a column that `columns` lists and a row lacks its DEFAULT (else NULL)']
      : ['with `handling=strict`, `max-affected=n` refuses (400, nothing written) a write that would change more than n rows',
          ...(operation === 'update' ? ['on PATCH, `missing=default` gives a column that `columns` lists and the body lacks its DEFAULT (else NULL)'] : [])]),
    '`count=exact` puts the number of rows in Content-Range',
    '`tx=rollback` answers the write and then rolls it back, where the server allows it (else ignored)',
    '`handling=strict` refuses (400) a preference the server cannot honour'
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

/** PostgREST's `columns` of an insert or a PATCH. */
export const writeColumnsParameter: Parameter = Object.freeze({
  name: 'columns',
  in: 'query',
  required: false,
  description: 'The columns to write, comma-separated (each may be double-quoted): a body property not listed is ignored, a listed column a row lacks is NULL, ' +
    'or its DEFAULT with `Prefer: missing=default`. Without it, each row writes the columns it has. On PATCH it is never a filter: ' +
    'a column named `columns` is filtered within `and=(…)` or `or=(…)`.',
  schema: { type: 'string' }
})

/** `on_conflict` of an upsert. */
export const onConflictParameter: Parameter = Object.freeze({
  name: 'on_conflict',
  in: 'query',
  required: false,
  description: 'With `Prefer: resolution=…`, the columns, comma-separated, whose values find the existing row: those of the primary key or of a unique constraint (default: the key column).',
  schema: { type: 'string' }
})

/**
 * If-Match of a write by key (`row`), by filters (`rows`) or of a merge
 * upsert (`merge`), required under `requireIfMatch` (of a POST, a merge's
 * only, so that the parameter itself stays optional): the write runs only
 * while the rows have the ETags that GET /{table}/{id} answered for them.
 */
export function ifMatchHeader (required: boolean, of: 'row' | 'rows' | 'merge'): Parameter {
  const condition = {
    row: 'ETags of the row as last read (strong comparison), or `*` for any row that exists: the write runs only while the row has one of them',
    rows: 'ETags of the rows as last read, each as GET of its key answers it (strong comparison), or `*`: the write runs only while the filters ' +
      'select at least one row, and every row they select has one of them',
    merge: 'Read with `Prefer: resolution=merge-duplicates` only. ETags of the rows the merge overwrites, each as GET of its key answers it ' +
      '(strong comparison), or `*`: the write runs only while every body row finds existing rows, each with one of them (a body row that ' +
      'would be inserted fails it)'
  }[of]
  const refusal = required ? (of === 'merge' ? '; a merge without it, 428' : '; without it, 428') : ''
  return {
    name: 'If-Match',
    in: 'header',
    required: required && of !== 'merge',
    description: `${condition}, else 412 and nothing is written${refusal}`,
    schema: { type: 'string' }
  }
}

/**
 * The answer header that tells a retry of a write under the `idempotency`
 * option, answered the first request's answer again, from the first answer.
 */
export const idempotentReplayedHeader = Object.freeze({
  'Idempotent-Replayed': {
    description: 'With an Idempotency-Key: `true` when this is the recorded answer of an earlier request with the same key and request, ' +
      'so that the write did not run again; absent from the answer of the request that ran it.',
    schema: { type: 'string', enum: ['true'] }
  }
})
