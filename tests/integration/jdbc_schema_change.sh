#!/usr/bin/env bash
# The jdbc sink's schema changes (apply_schema_change) against real servers: the Criterion
# driver tests/connectors/jdbc.c (which runs on SQLite by itself) is run again with
# CDC_JDBC_URL pointing at a PostgreSQL 15 and a MariaDB 10.11 started here, the latter under
# both "jdbc:mysql:" (no IF [NOT] EXISTS) and "jdbc:mariadb:". A server that cannot be started
# is a failure.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
src=${CDC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
driver=${CDC_JDBC_DRIVER:-$(dirname "$bin")/tests/test_connectors_jdbc}
tmp=$(mktemp -d)
cd "$tmp" || exit 1
if [[ ! -x $driver ]]; then
  bad "no driver at $driver (build the test_connectors_jdbc target)"
  echo "jdbc_schema_change: $pass passed, $fail failed"
  exit 1
fi

run_driver() { # NAME URL USER PASSWORD
  if CDC_JDBC_URL=$2 CDC_JDBC_USER=$3 CDC_JDBC_PASSWORD=$4 "$driver" --jobs 1 >"$1.txt" 2>&1; then
    ok
  else
    bad "schema changes on $1"
    cat "$1.txt"
  fi
}

# shellcheck source=../servers/postgres.sh
source "$src/tests/servers/postgres.sh"
if pg_start cdcflow; then
  run_driver postgresql "$PG_URL" postgres ""
else
  bad "could not start PostgreSQL 15"
fi
pg_stop

# shellcheck source=../servers/mariadb.sh
source "$src/tests/servers/mariadb.sh"
if my_start cdcflow; then
  run_driver mysql "$MY_URL" writer "$MY_PASSWORD"
  run_driver mariadb "${MY_URL/jdbc:mysql:/jdbc:mariadb:}" writer "$MY_PASSWORD"
else
  bad "could not start MariaDB"
fi
my_stop
rm -rf "$tmp"
echo "jdbc_schema_change: $pass passed, $fail failed"
((fail == 0))
