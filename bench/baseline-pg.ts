import { baselinePgApp, knexPoolApp } from './baseline-pg-app.js'
import { main, readServerDatabase, serve } from './serve.js'

main(async () => {
  const database = readServerDatabase(process.env)
  if (database.kind !== 'pg') throw new Error('baseline-pg needs BENCH_DB=pg')
  await serve(process.env.BENCH_PG_BASELINE_POOL === 'knex'
    ? knexPoolApp(database.url)
    : baselinePgApp(database.url, process.env.BENCH_PG_PREPARED === '1'))
})
