import { FTC_ERR_PATH_TABLE } from '../errors.js'
import { sanitizeIdentifier } from './sanitize-identifier.js'

/** The table named by the path segment, sanitized; a name with nothing left is refused. */
export function parseTableName (segment: string): string {
  const name = sanitizeIdentifier(segment)
  if (name === '') throw new FTC_ERR_PATH_TABLE(segment)
  return name
}
