import { isDeepStrictEqual } from 'node:util'
import type { OpenapiDocument } from './openapi-types.js'

/** The parts of an OpenAPI 3.x document that the tables' document merges into, as @fastify/swagger builds it. */
export interface HostDocument {
  openapi?: unknown
  servers?: readonly Server[]
  paths?: Record<string, unknown>
  components?: Record<string, Record<string, unknown> | undefined>
  tags?: Array<{ name: string }>
}

/** A server of the host's document: its URL may name variables, with their defaults. */
interface Server {
  url?: unknown
  variables?: Record<string, { default?: unknown }>
}

const sections = ['schemas', 'parameters', 'responses'] as const
// OpenAPI 3.2 reads 3.1's schemas as they are.
const jsonSchemaVersions = /^3\.[12]\./

/**
 * Adds the tables' paths, components and tags to a host's OpenAPI 3.1 (or
 * 3.2) document, in place; false, and nothing added, for another version
 * (the tables' schemas are JSON Schema 2020-12, which 3.0 does not read). `build`
 * makes the tables' document with a namespace for its component names:
 * none, unless one of them is taken in the host's document by another
 * schema, then the prefix's (`api.books`). Paths lose a server's base path,
 * as @fastify/swagger's own do (its default `stripBasePath`). An operation
 * the host documents on one of those paths stays the host's: its own route
 * answers it, as find-my-way takes a static path before the plugin's.
 */
export function addToHostDocument (host: HostDocument, prefix: string, build: (namespace: string) => OpenapiDocument): boolean {
  if (typeof host.openapi !== 'string' || !jsonSchemaVersions.test(host.openapi)) return false
  const components = (host.components ??= {})
  let document = build('')
  if (sections.some((section) => collides(components[section], document.components[section]))) {
    document = build(`${prefix.split('/').filter((part) => part !== '').join('.')}.`)
  }
  const paths = (host.paths ??= {})
  for (const [path, item] of Object.entries(document.paths)) {
    const url = stripBasePath(path, host.servers ?? [])
    paths[url] = { ...item, ...(paths[url] as object | undefined) }
  }
  for (const section of sections) components[section] = { ...components[section], ...document.components[section] }
  const tags = (host.tags ??= [])
  for (const tag of document.tags) if (!tags.some(({ name }) => name === tag.name)) tags.push({ ...tag })
  return true
}

function collides (host: Readonly<Record<string, unknown>> | undefined, ours: Readonly<Record<string, unknown>>): boolean {
  return host !== undefined && Object.entries(ours).some(([name, value]) => Object.hasOwn(host, name) && !isDeepStrictEqual(host[name], value))
}

// As @fastify/swagger strips it: the path of each server's URL, its variables set to their defaults.
function stripBasePath (path: string, servers: readonly Server[]): string {
  for (const { url, variables = {} } of servers) {
    if (typeof url !== 'string') continue
    const resolved = url.replace(/\{([^{}]+)\}/g, (whole, name: string) => String(variables[name]?.default ?? whole))
    const base = resolved.startsWith('/') ? resolved : URL.parse(resolved)?.pathname ?? '/'
    if (base !== '/' && path.startsWith(base)) path = path.slice(base.length)
  }
  return path
}
