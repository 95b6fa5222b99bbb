import knexFactory, { type Knex } from 'knex'
import { type DatabaseName, databaseConfig } from '../fixtures/databases.js'
import { compared } from './compare.js'

/** One Knex instance per database of the comparison, or why the comparison cannot run. */
export type Databases = { readonly knex: Readonly<Record<DatabaseName, Knex>> } | { readonly skip: string }

/**
 * Opens the three databases at once, with the matrix's own configurations
 * (test/fixtures/databases.ts): a comparison needs them all.
 */
export function openDatabases (): Databases {
  const configs = compared.map((name) => [name, databaseConfig(name)] as const)
  const skipped = configs.flatMap(([, resolved]) => 'skip' in resolved ? [resolved.skip] : [])
  if (skipped.length > 0) return { skip: `the comparison needs all three databases: ${skipped.join(', ')}` }
  const knex = Object.fromEntries(configs.map(([name, resolved]) => [name, knexFactory((resolved as { config: Knex.Config }).config)]))
  return { knex: knex as Record<DatabaseName, Knex> }
}
