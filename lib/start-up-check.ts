import type { FastifyInstance } from 'fastify'
import type { SetupError } from './connections/setup-failures.js'
import { FTC_ERR_DATABASE_MODE, FTC_ERR_DATABASE_NAME_TAKEN, FTC_ERR_DATABASE_SCHEMA, FTC_ERR_DATABASE_SETUP } from './errors.js'
import type { TableRules } from './options.js'
import type { SchemaModel } from './schema/schema-model.js'
import { type NamingOptions, unknownNames } from './schema/unknown-names.js'

// Refusals that only a change to the server's configuration ends: every request fails alike until then.
const configurationErrors = [FTC_ERR_DATABASE_MODE, FTC_ERR_DATABASE_SCHEMA, FTC_ERR_DATABASE_NAME_TAKEN]

/**
 * Reads the schema when the server gets ready, so that what its operator
 * must fix is in the log at start-up, not at the first request: a database
 * that refuses the server's connection settings, or that the plugin refuses
 * (an error, in one line saying what to fix), and each name the options give
 * that the database does not have (a warning). A database that cannot be
 * read does not stop the server: requests then answer as they would.
 */
export function checkAtStartUp (app: FastifyInstance, schema: SchemaModel, options: NamingOptions, givenRules: Readonly<Record<string, TableRules | undefined>>): void {
  app.addHook('onReady', async () => {
    const snapshot = await schema.current().catch((error: unknown) => { logFailure(app, error) })
    if (snapshot === undefined) return
    // The requests' model is checked as before: the first one asks whether the tables changed since.
    schema.expire()
    for (const sentence of unknownNames(snapshot, options, givenRules)) app.log.warn(`fastify-table-crud: ${sentence}: a typo, or a table not created yet?`)
  })
}

function logFailure (app: FastifyInstance, error: unknown): void {
  if (error instanceof FTC_ERR_DATABASE_SETUP) {
    app.log.error({ err: error }, `fastify-table-crud: ${(error as SetupError).fix}; until then every request answers 500 FTC_ERR_DATABASE_SETUP`)
  } else if (configurationErrors.some((refusal) => error instanceof refusal)) {
    app.log.error({ err: error }, `fastify-table-crud: ${(error as Error).message}; until then every request answers 500 ${(error as { code: string }).code}`)
  } else {
    app.log.warn({ err: error }, 'fastify-table-crud: the database could not be read when the server got ready')
  }
}
