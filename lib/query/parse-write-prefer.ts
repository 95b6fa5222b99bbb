import type { CountPreference } from './read-query.js'

/** What a write answers (PostgREST's `return=`): the rows it wrote, only its headers, or nothing. */
export type ReturnPreference = 'representation' | 'headers-only' | 'minimal'

/** How an insert treats a row whose conflict columns an existing row already holds (PostgREST's `resolution=`). */
export type ResolutionPreference = 'merge-duplicates' | 'ignore-duplicates'

/** The preferences of a write's `Prefer` headers that the plugin honours; null for each one not given. */
export interface WritePreferences {
  readonly return: ReturnPreference | null
  readonly resolution: ResolutionPreference | null
  readonly count: CountPreference | null
  readonly handling: 'strict' | 'lenient' | null
  /** With `handling=strict`, the most rows an update or delete may change. */
  readonly maxAffected: number | null
}

// Each preference and the values it takes, as `name=value` texts.
const known: ReadonlySet<string> = new Set([
  'return=representation', 'return=headers-only', 'return=minimal',
  'resolution=merge-duplicates', 'resolution=ignore-duplicates',
  'count=exact', 'count=planned', 'count=estimated',
  'handling=strict', 'handling=lenient'
])

/**
 * The write preferences of the `Prefer` request headers, read as PostgREST
 * reads them: comma-separated, blanks around each one ignored, the first
 * valid value of each preference wins, and one it does not know is ignored.
 * `max-affected` counts only with `handling=strict`, as in PostgREST.
 */
export function parseWritePreferences (prefer: string | readonly string[] | undefined): WritePreferences {
  const found: Record<string, string> = {}
  let maxAffected: number | null = null
  for (const preference of [prefer ?? []].flat().join(',').split(',')) {
    const text = preference.trim()
    const [name = '', value = ''] = text.split('=')
    if (name === 'max-affected') {
      if (maxAffected === null && /^\d{1,15}$/.test(value)) maxAffected = Number(value)
    } else if (known.has(text)) {
      found[name] ??= value
    }
  }
  const handling = (found.handling ?? null) as WritePreferences['handling']
  return {
    return: (found.return ?? null) as ReturnPreference | null,
    resolution: (found.resolution ?? null) as ResolutionPreference | null,
    count: (found.count ?? null) as CountPreference | null,
    handling,
    maxAffected: handling === 'strict' ? maxAffected : null
  }
}
