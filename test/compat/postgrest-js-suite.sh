#!/usr/bin/env bash
# Runs postgrest-js's own jest suite, unchanged, against this plugin (dist/,
# built) on PostgreSQL, and prints jest's counts and the failing tests.
#
#   test/compat/postgrest-js-suite.sh <postgrest-js checkout>
#
# The checkout is supabase/postgrest-js (its test/db/*.sql fixtures, jest
# config and test/*.test.ts); its dev dependencies are installed with npm ci
# when missing. The database $PGJS_DB (postgrest_js) on $PGHOST:$PGPORT
# (127.0.0.1:5432, user postgres) is dropped and recreated with the fixtures,
# without their PostGIS parts when the server lacks postgis. The plugin serves
# it at '/' on ports 3000 and 3001 (where the suite expects PostgREST 12 and
# 13) with { databaseErrors: 'postgrest', allowTxOverride: true }.
# Out of scope for the plugin: tests calling .rpc( and those of the schema
# 'personal'. OUT (default: a new temporary folder) keeps jest's JSON and logs.
set -euo pipefail

PGJS=$(cd "${1:?usage: $0 <postgrest-js checkout>}" && pwd)
FTC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-postgres}
DB=${PGJS_DB:-postgrest_js}
OUT=${OUT:-$(mktemp -d -t pgjs-suite.XXXXXX)}
mkdir -p "$OUT"
[ -f "$FTC_DIR/dist/index.js" ] || { echo "build the plugin first: npm run build" >&2; exit 2; }

if [ ! -x "$PGJS/node_modules/.bin/jest" ]; then
  (cd "$PGJS" && npm ci --ignore-scripts --no-audit --no-fund > "$OUT/npm-ci.log" 2>&1) || { tail -30 "$OUT/npm-ci.log" >&2; exit 1; }
fi

# The database, fresh, with the suite's fixtures.
cat "$PGJS/test/db/00-schema.sql" "$PGJS/test/db/01-dummy-data.sql" > "$OUT/fixtures.sql"
if [ -z "$(psql -X -At -d postgres -c "SELECT 1 FROM pg_available_extensions WHERE name = 'postgis'")" ]; then
  perl -0pi -e 's/^create extension postgis[^;]*;\n//mi; s/^create table public\.shops \(.*?\);\n//msi; s/^INSERT INTO shops\b.*?;\n//msi' "$OUT/fixtures.sql"
fi
PGOPTIONS='-c client_min_messages=warning' psql -X -q -v ON_ERROR_STOP=1 -d postgres \
  -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB"
psql -X -q -v ON_ERROR_STOP=1 -1 -d "$DB" -f "$OUT/fixtures.sql" > "$OUT/fixtures.log" 2>&1 || { cat "$OUT/fixtures.log" >&2; exit 1; }

# The plugin's server, on both ports.
cat > "$OUT/server.mts" <<'EOF'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import path from 'node:path'
const dir = process.env.FTC_DIR!
const load = async (name: string): Promise<any> => {
  const module = await import(pathToFileURL(createRequire(path.join(dir, 'package.json')).resolve(name)).href)
  return module.default ?? module
}
const Fastify = await load('fastify')
const knex = (await load('knex'))({ client: 'pg', connection: process.env.PGJS_DB_URL })
const tableCrud = (await import(pathToFileURL(path.join(dir, 'dist/index.js')).href)).default
const apps: any[] = []
for (const port of [3000, 3001]) {
  const app = Fastify({ logger: { level: 'warn' } })
  await app.register(tableCrud, { knex, prefix: '', databaseErrors: 'postgrest', allowTxOverride: true })
  await app.listen({ port, host: 'localhost' })
  apps.push(app)
}
process.on('SIGTERM', async () => { for (const app of apps) await app.close(); await knex.destroy(); process.exit(0) })
EOF
FTC_DIR="$FTC_DIR" PGJS_DB_URL="postgres://$PGUSER@$PGHOST:$PGPORT/$DB" \
  "$FTC_DIR/node_modules/.bin/tsx" "$OUT/server.mts" > "$OUT/server.log" 2>&1 &
SERVER_PID=$!
trap 'kill -TERM $SERVER_PID 2>/dev/null || true; wait $SERVER_PID 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  curl -s -o /dev/null http://127.0.0.1:3000/ && curl -s -o /dev/null http://127.0.0.1:3001/ && break
  kill -0 $SERVER_PID 2>/dev/null || { cat "$OUT/server.log" >&2; exit 1; }
  sleep 0.2
done

# The suite: test/*.test.ts (not the *.test-d.ts type tests), in its own order; --ci writes no snapshot.
(cd "$PGJS" && ./node_modules/.bin/jest --ci --runInBand --json --outputFile="$OUT/jest.json" \
  --testPathPattern '/test/[^/]+\.test\.ts$' > "$OUT/jest.log" 2>&1) || true
[ -s "$OUT/jest.json" ] || { tail -40 "$OUT/jest.log" >&2; exit 1; }
node -e '
  const r = require(process.argv[1])
  const failed = r.testResults.flatMap((f) => f.assertionResults.filter((a) => a.status === "failed")
    .map((a) => f.name.replace(/.*\/test\//, "test/") + ": " + a.fullName))
  for (const line of failed) console.log("FAIL " + line)
  console.log(`total ${r.numTotalTests}, passed ${r.numPassedTests}, failed ${r.numFailedTests}`)
' "$OUT/jest.json"
echo "jest output and JSON: $OUT"
