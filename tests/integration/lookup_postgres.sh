#!/usr/bin/env bash
# Lookup joins against a real PostgreSQL 15 started here (tests/servers/postgres.sh): the
# cases of lib/lookup_cases.sh (joins, kinds, the PARTIAL cache proven by changing the
# table mid-job, an unreachable server failing after lookup.max-retries), and a server
# restart in the middle of a job whose failed lookups are retried. A server that cannot be
# started is a failure.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
src=${CDC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
cd "$tmp" || exit 1
# shellcheck source=../servers/postgres.sh
source "$src/tests/servers/postgres.sh"
if ! pg_start cdcflow; then
  bad "could not start PostgreSQL 15"
  pg_stop
  rm -rf "$tmp"
  echo "lookup_postgres: $pass passed, $fail failed"
  exit 1
fi
trap 'pg_stop; rm -rf "$tmp"' EXIT

db_sql() { pg_psql -c "$1" >/dev/null || bad "psql: $1"; }
pg_psql -c "CREATE ROLE reader LOGIN PASSWORD 'hunter2' SUPERUSER" >/dev/null || bad "CREATE ROLE"
LK_URL=$PG_URL
LK_BAD_URL="jdbc:postgresql://127.0.0.1:1/nothing"
LK_AUTH="'username' = 'reader', 'password' = 'hunter2',"
LK_TS="TIMESTAMP(3)"
LK_TYPES_DDL="CREATE TABLE typed (k INT, b BYTEA, f DOUBLE PRECISION, t TIME(3), tz TIMESTAMPTZ(3));
  INSERT INTO typed VALUES (1, '\\x0a1b00ff', 2.5, '10:08:22.123', '2020-07-30 10:08:22.123+00')"
# shellcheck source=lib/lookup_cases.sh
source "$src/tests/integration/lib/lookup_cases.sh"
lookup_cases postgres
lookup_bad_value postgres
lookup_types postgres
jdbc_scan_cases postgres
lookup_restart postgres pg_restart
if grep -q hunter2 ./*.out ./*.err; then bad "the password was printed"; else ok; fi

echo "lookup_postgres: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
