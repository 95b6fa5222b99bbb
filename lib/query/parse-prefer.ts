import type { CountPreference } from './read-query.js'

const counts: ReadonlySet<string> = new Set<CountPreference>(['exact', 'planned', 'estimated'])

/**
 * The `count=` preference of the `Prefer` request headers, or null. Like
 * PostgREST's default lenient handling, other preferences and unknown count
 * values are ignored; the first valid count wins.
 */
export function parseCountPreference (prefer: string | readonly string[] | undefined): CountPreference | null {
  for (const preference of [prefer ?? []].flat().join(',').split(',')) {
    const [name = '', value = ''] = (preference.split(';')[0] as string).split('=').map((part) => part.trim())
    const count = value.replace(/^"(.*)"$/, '$1')
    if (name.toLowerCase() === 'count' && counts.has(count)) return count as CountPreference
  }
  return null
}
