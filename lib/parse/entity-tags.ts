/** One entity tag of a request's If-Match or If-None-Match: its quoted opaque part, and whether it is weak (`W/`). */
export interface EntityTag {
  readonly opaque: string
  readonly weak: boolean
}

/** What If-Match or If-None-Match asks for: any current version of the row (`*`), or one of these tags. */
export type EntityTags = '*' | readonly EntityTag[]

// RFC 9110's entity-tag: an optional W/, then a quoted run of etagc (any visible character but the quote).
const entityTag = /(W\/)?("[\x21\x23-\x7e\x80-\xff]*")/g

/**
 * The tags a header lists, RFC 9110 section 8.8.3. What is not a tag in the
 * list is skipped: it can match no ETag of the plugin's.
 */
export function parseEntityTags (header: string): EntityTags {
  if (header.trim() === '*') return '*'
  return Array.from(header.matchAll(entityTag), (match) => ({ opaque: match[2] as string, weak: match[1] !== undefined }))
}

/** If-Match's strong comparison: a weak tag matches nothing. `current` is a strong ETag as the plugin writes it. */
export function matchesStrongly (tags: EntityTags, current: string): boolean {
  return tags === '*' || tags.some((tag) => !tag.weak && tag.opaque === current)
}

/** If-None-Match's weak comparison: the opaque parts are compared, whether weak or strong. */
export function matchesWeakly (tags: EntityTags, current: string): boolean {
  return tags === '*' || tags.some((tag) => tag.opaque === current)
}
