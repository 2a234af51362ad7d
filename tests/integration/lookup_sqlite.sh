#!/usr/bin/env bash
# Lookup joins against a real SQLite database file (the jdbc connector as a
# LookupTableSource): the cases of lib/lookup_cases.sh — inner/left joins, two keys, extra
# conditions, changelog kinds kept, the PARTIAL cache proven by changing the table while a
# job runs (not seen within the TTL, seen without a cache or once expired), and a database
# that cannot be opened failing after lookup.max-retries.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
src=${CDC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
command -v sqlite3 >/dev/null || { echo "FAIL no sqlite3 client"; exit 1; }

db_sql() { sqlite3 -cmd '.timeout 10000' "$tmp/dim.db" "$1" || bad "sqlite3: $1"; }
LK_URL="jdbc:sqlite:$tmp/dim.db"
LK_BAD_URL="jdbc:sqlite:$tmp/no/such/dir/x.db"
LK_AUTH=""
LK_TS="TEXT"
LK_TYPES_DDL="CREATE TABLE typed (k INT, b BLOB, f REAL, t TEXT, tz TEXT);
  INSERT INTO typed VALUES (1, X'0a1b00ff', 2.5, '10:08:22.123', '2020-07-30 10:08:22.123Z')"
# shellcheck source=lib/lookup_cases.sh
source "$src/tests/integration/lib/lookup_cases.sh"
lookup_cases sqlite
lookup_bad_value sqlite
lookup_types sqlite
jdbc_scan_cases sqlite

echo "lookup_sqlite: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
