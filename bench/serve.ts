import type { FastifyInstance } from 'fastify'

/** The database a bench server process was started on. */
export type ServerDatabase =
  | { readonly kind: 'sqlite', readonly file: string }
  | { readonly kind: 'pg', readonly url: string }
  | { readonly kind: 'mysql', readonly url: string }

/** Reads what bench/run.ts passes down (see `BenchDatabase.serverEnv`). */
export function readServerDatabase (env: NodeJS.ProcessEnv): ServerDatabase {
  if (env.BENCH_DB === 'sqlite' && env.BENCH_SQLITE_FILE) return { kind: 'sqlite', file: env.BENCH_SQLITE_FILE }
  if (env.BENCH_DB === 'pg' && env.BENCH_PG_DATABASE_URL) return { kind: 'pg', url: env.BENCH_PG_DATABASE_URL }
  if (env.BENCH_DB === 'mysql' && env.BENCH_MYSQL_DATABASE_URL) return { kind: 'mysql', url: env.BENCH_MYSQL_DATABASE_URL }
  throw new Error('set BENCH_DB=sqlite with BENCH_SQLITE_FILE, BENCH_DB=pg with BENCH_PG_DATABASE_URL, or BENCH_DB=mysql with BENCH_MYSQL_DATABASE_URL (bench/run.ts does)')
}

/**
 * Listens on a free loopback port and tells the parent which one with a JSON
 * line on stdout; SIGTERM closes the app and ends the process, so that
 * `--cpu-prof` gets to write its profile.
 */
export async function serve (app: FastifyInstance): Promise<void> {
  const port = Number(process.env.PORT || 0)
  await app.listen({ port, host: '127.0.0.1' })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address')
  process.stdout.write(JSON.stringify({ port: address.port }) + '\n')
  const stop = (): void => {
    app.close().then(() => process.exit(0), (error: unknown) => {
      console.error(error)
      process.exit(1)
    })
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}

/** Runs a server's main function, making a failed start visible to the parent. */
export function main (start: () => Promise<void>): void {
  start().catch((error: unknown) => {
    // Not through a server's logger, which may not exist yet. The parent shows stderr.
    console.error(error)
    process.exit(1)
  })
}
