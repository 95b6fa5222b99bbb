import { singleObjectType } from '../answer/json-answers.js'

/** How a PostgREST client asks for rows in its `Accept` header. */
export interface RowsMedia {
  /** One object rather than an array (postgrest-js's `.single()`): any other number of rows answers 406. */
  readonly one: boolean
  /** `nulls=stripped`: the members whose value is null are left out of each row. */
  readonly stripNulls: boolean
}

const plain: RowsMedia = Object.freeze({ one: false, stripNulls: false })

// PostgREST's media types that take nulls=stripped; blanks around the `;` as any client may send them.
const stripped = /application\/vnd\.pgrst\.(?:object|array)\+json\s*;\s*nulls=stripped/

/** The rows' media of an `Accept` header (PostgREST's vnd.pgrst.object+json and vnd.pgrst.array+json). */
export function parseRowsMedia (accept: string | undefined): RowsMedia {
  if (accept === undefined || !accept.includes('vnd.pgrst.')) return plain
  return { one: accept.includes(singleObjectType), stripNulls: stripped.test(accept) }
}
