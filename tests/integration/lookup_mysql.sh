#!/usr/bin/env bash
# Lookup joins against a real MariaDB 10.11 started here (tests/servers/mariadb.sh): the
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
# shellcheck source=../servers/mariadb.sh
source "$src/tests/servers/mariadb.sh"
if ! my_start cdcflow; then
  bad "could not start MariaDB"
  my_stop
  rm -rf "$tmp"
  echo "lookup_mysql: $pass passed, $fail failed"
  exit 1
fi
trap 'my_stop; rm -rf "$tmp"' EXIT

db_sql() { my_sql -e "$1" || bad "mariadb: $1"; }
LK_URL=$MY_URL
LK_BAD_URL="jdbc:mysql://127.0.0.1:1/nothing"
LK_AUTH="'username' = 'writer', 'password' = '$MY_PASSWORD',"
LK_TS="DATETIME(3)"
LK_TYPES_DDL="SET time_zone = '+00:00';
  CREATE TABLE typed (k INT, b VARBINARY(20), f DOUBLE, t TIME(3), tz TIMESTAMP(3) NULL);
  INSERT INTO typed VALUES (1, X'0a1b00ff', 2.5, '10:08:22.123', '2020-07-30 10:08:22.123')"
# shellcheck source=lib/lookup_cases.sh
source "$src/tests/integration/lib/lookup_cases.sh"
lookup_cases mysql
lookup_bad_value mysql
lookup_types mysql
jdbc_scan_cases mysql
lookup_restart mysql my_restart
if grep -q "$MY_PASSWORD" ./*.out ./*.err; then bad "the password was printed"; else ok; fi

echo "lookup_mysql: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
