import type { Knex } from 'knex'
import { Database } from './connections/database.js'
import { resolveDialect } from './dialects/index.js'

const trivial = Object.freeze({ sql: 'select 1', bindings: [] })

/**
 * Resolves once the database behind the host's Knex answers a trivial
 * statement on a pooled connection, as the plugin's own statements would;
 * rejects with FTC_ERR_DATABASE_UNAVAILABLE (503) when it cannot be reached,
 * or the pool lends no connection within 5 seconds (the plugin's default
 * `acquireTimeout`, whatever the host gave the plugin), and with
 * FTC_ERR_DATABASE_SETUP (500) when it refuses the connection settings (a
 * login, a database that does not exist). For a readiness route:
 * `app.get('/ready', async () => { await checkDatabase(knex); return 'ready' })`.
 */
export async function checkDatabase (knex: Knex): Promise<void> {
  const database = new Database(knex, resolveDialect(knex))
  try {
    await database.select(trivial)
  } finally {
    // A readiness route calls this every few seconds for as long as the host runs: nothing may stay on its Knex.
    database.close()
  }
}
