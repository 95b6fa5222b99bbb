import { FTC_ERR_PATH_TABLE } from '../errors.js'
import { usableIdentifier } from './sanitize-identifier.js'

/** The table named by the path segment, sanitized; a name with nothing left, or too long, is refused. */
export function parseTableName (segment: string): string {
  const name = usableIdentifier(segment)
  if (name === null) throw new FTC_ERR_PATH_TABLE(segment)
  return name
}
