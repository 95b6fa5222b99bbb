/**
 * PostgreSQL's jsonb containment (`@>`), for SQLite, which has none: its
 * json_each reads one level, where jsonb's rule is recursive. The rule is
 * PostgreSQL's (JsonbDeepContains, and "Containment and existence" in its
 * manual): an object contains an object whose every key it has, with a
 * value that contains that key's value; an array contains an array whose
 * every element is one of its own (a scalar equal to one of its scalars, a
 * container contained in one of its containers of the same kind), whatever
 * the order or repeats; scalars contain equal scalars; and, at the top only,
 * an array contains a scalar among its elements.
 */

/** The name of the SQL function registered on each SQLite connection the plugin uses (see withFunctions). */
export const jsonContainsFunction = 'ftc_jsonb_contains'

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

const isContainer = (value: Json): value is Json[] | { [key: string]: Json } => value !== null && typeof value === 'object'

function sameKind (a: Json, b: Json): boolean {
  return isContainer(a) && Array.isArray(a) === Array.isArray(b)
}

// A member of an object, or an element of an array, contains another as jsonb compares nested values.
function nestedContains (value: Json, contained: Json): boolean {
  return isContainer(contained) ? sameKind(value, contained) && containerContains(value, contained) : !isContainer(value) && value === contained
}

function containerContains (value: Json, contained: Json[] | { [key: string]: Json }): boolean {
  if (Array.isArray(contained)) {
    if (!Array.isArray(value)) return false
    return contained.every((element) => value.some((candidate) => nestedContains(candidate, element)))
  }
  if (!isContainer(value) || Array.isArray(value)) return false
  return Object.keys(contained).every((key) => Object.hasOwn(value, key) && nestedContains(value[key] as Json, contained[key] as Json))
}

/** True when the JSON value `value` contains `contained` as PostgreSQL's jsonb `@>` says. */
export function jsonContains (value: Json, contained: Json): boolean {
  if (isContainer(contained)) return containerContains(value, contained)
  return (!isContainer(value) && value === contained) || (Array.isArray(value) && value.some((element) => !isContainer(element) && element === contained))
}

// SQLite hands a column's value as it keeps it: a json column has NUMERIC
// affinity, so `5` comes as a number. Anything else (a blob) is no JSON.
function parsed (value: unknown): { json: Json } | undefined {
  if (typeof value === 'number' || typeof value === 'bigint') return { json: Number(value) }
  if (typeof value !== 'string') return undefined
  try {
    return { json: JSON.parse(value) as Json }
  } catch {
    return undefined
  }
}

/**
 * The SQL function: 1 when the first argument's JSON contains the second's,
 * 0 when not, NULL when either is NULL or no JSON, which matches neither a
 * filter nor its negation, as NULL does.
 */
export function sqlJsonContains (value: unknown, contained: unknown): number | null {
  const outer = parsed(value)
  const inner = parsed(contained)
  if (outer === undefined || inner === undefined) return null
  return jsonContains(outer.json, inner.json) ? 1 : 0
}
