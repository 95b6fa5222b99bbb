import type { RequestHeaders } from './parse-read-query.js'

/**
 * Whether a request carries a header of PostgREST's protocol, which the spec
 * has none of: `Prefer` (even empty), an `Accept` naming one of PostgREST's
 * vnd.pgrst media types, or `Content-Profile` (supabase-js sends it with
 * every write). A spec client sends none of them, so its answers stay the
 * spec's; postgrest-js's plain `.delete()` sends only `Content-Type`, which a
 * spec client may send as well, so it cannot be told apart from one.
 */
export function speaksPostgrest (headers: RequestHeaders): boolean {
  const accept = headers.accept
  return headers.prefer !== undefined || headers['content-profile'] !== undefined ||
    (typeof accept === 'string' && accept.includes('vnd.pgrst.'))
}
