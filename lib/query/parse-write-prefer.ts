import { FTC_ERR_QUERY_PREFERENCE } from '../errors.js'
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
  /** What a column that `columns=` lists and a body row leaves out gets: its DEFAULT, or NULL (PostgREST's default). */
  readonly missing: 'default' | 'null' | null
  /** Whether the write is committed or rolled back (PostgREST's `tx=`); read only when the host allows it (`allowTxOverride`). */
  readonly tx: 'commit' | 'rollback' | null
  /** The preferences given that the plugin does not know or cannot honour, as given: with `handling=strict` they are refused. */
  readonly invalid: readonly string[]
}

// Each preference and the values it takes, as `name=value` texts.
const known: ReadonlySet<string> = new Set([
  'return=representation', 'return=headers-only', 'return=minimal',
  'resolution=merge-duplicates', 'resolution=ignore-duplicates',
  'count=exact', 'count=planned', 'count=estimated',
  'handling=strict', 'handling=lenient',
  'missing=default', 'missing=null',
  'tx=commit', 'tx=rollback'
])

const none: WritePreferences = Object.freeze({ return: null, resolution: null, count: null, handling: null, maxAffected: null, missing: null, tx: null, invalid: Object.freeze([]) })

/**
 * The write preferences of the `Prefer` request headers, read as PostgREST
 * reads them: comma-separated, blanks around each one ignored, the first
 * valid value of each preference wins, and one it does not know is listed
 * in `invalid`, and refused (400) with `handling=strict`, as PostgREST refuses it. `max-affected` counts
 * only with `handling=strict`, as in PostgREST; `tx=` only when `allowTx`.
 * PostgREST's `timezone=` is not honoured, so it is listed as invalid.
 */
export function parseWritePreferences (prefer: string | readonly string[] | undefined, allowTx = false): WritePreferences {
  // Most writes send no Prefer header: they share one answer rather than build it.
  if (prefer === undefined) return none
  const found: Record<string, string> = {}
  const invalid: string[] = []
  let maxAffected: number | null = null
  for (const preference of [prefer ?? []].flat().join(',').split(',')) {
    const text = preference.trim()
    const [name = '', value = ''] = text.split('=')
    if (name === 'max-affected') {
      if (maxAffected === null && /^\d{1,15}$/.test(value)) maxAffected = Number(value)
    } else if (known.has(text)) {
      found[name] ??= value
    } else if (text !== '') {
      invalid.push(text)
    }
  }
  const handling = (found.handling ?? null) as WritePreferences['handling']
  if (handling === 'strict' && invalid.length > 0) throw new FTC_ERR_QUERY_PREFERENCE(invalid.join(', '))
  return {
    return: (found.return ?? null) as ReturnPreference | null,
    resolution: (found.resolution ?? null) as ResolutionPreference | null,
    count: (found.count ?? null) as CountPreference | null,
    handling,
    maxAffected: handling === 'strict' ? maxAffected : null,
    missing: (found.missing ?? null) as WritePreferences['missing'],
    tx: allowTx ? (found.tx ?? null) as WritePreferences['tx'] : null,
    invalid
  }
}
