#!/usr/bin/env bash
# Schema changes read by the postgres-cdc reader from a real PostgreSQL 15, driven by
# pgc_schema_probe (tests/integration/pgc_schema_probe.c: polls and commits as the runtime
# does; the end-to-end handling in `cdcflow run` is the runtime's): each change ends a poll
# with the rows before it (at its transaction's LSN: pgoutput gives a Relation message no WAL
# position of its own); a change inside a transaction,
# with the reader reopened on the new columns after its commit (a re-plan), does not deliver
# the transaction's rows before the change again; a DDL made while the reader was stopped is
# reported at the first row after the restart (the history in the state file), and only once;
# TRUNCATE is a change. Without a state directory, a reopen in the same process is still
# right (the history kept in memory). A server that cannot be started is a failure.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
probe=${CDC_PGC_PROBE:?CDC_PGC_PROBE must point at the pgc_schema_probe binary}
src=${CDC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
cd "$tmp" || exit 1

# shellcheck source=../servers/postgres.sh
source "$src/tests/servers/postgres.sh"
if ! pg_start shop; then
  bad "could not start PostgreSQL 15"
  pg_stop
  rm -rf "$tmp"
  echo "postgres_cdc_schema: $pass passed, $fail failed"
  exit 1
fi
trap 'pg_stop; rm -rf "$tmp"' EXIT
mkdir state

run() { # slot cols [options...]: the probe's output, LSNs masked
  local slot=$1 cols=$2
  shift 2
  timeout 60 "$probe" "$PG_PORT" "$slot" "$cols" "$@" 2>err.txt | sed -E 's#LSN [0-9A-F]+/[0-9A-F]+#LSN <lsn>#'
  [[ -s err.txt ]] && echo "stderr: $(head -3 err.txt)"
}
expect() { # name: the output (stdin) must be the lines that follow
  local name=$1
  cat >want.txt
  if diff -u want.txt got.txt; then ok; else bad "$name"; fi
}

pg_psql -c "CREATE TABLE t (id int PRIMARY KEY, a int); ALTER TABLE t REPLICA IDENTITY FULL" ||
  bad "CREATE TABLE"
run s1 'id INT, a INT' --state-dir state >got.txt # creates the slot
expect "first run (the slot is made)" </dev/null

pg_psql <<'SQL' || bad "the changes"
INSERT INTO t VALUES (1, 1);
ALTER TABLE t ADD COLUMN b int;
INSERT INTO t VALUES (2, 2, 20);
BEGIN;
INSERT INTO t VALUES (3, 3, 30);
ALTER TABLE t ADD COLUMN c int DEFAULT 5;
INSERT INTO t VALUES (4, 4, 40);
UPDATE t SET a = 33 WHERE id = 3;
COMMIT;
SQL
# 1. each change ends a poll; the reader is reopened on the new columns after each commit:
# the transaction replayed from its Begin gives neither +I[3] again nor a change again
run s1 'id INT, a INT' --state-dir state --reopen >got.txt
expect "changes between rows, one inside a transaction, reopened after each" <<'EOF2'
+I[1, 1]
-- schema change: public.t at LSN <lsn>: ADD COLUMN b INT
-- reopened
+I[2, 2, 20]
+I[3, 3, 30]
-- schema change: public.t at LSN <lsn>: ADD COLUMN c INT DEFAULT 5
-- reopened
+I[4, 4, 40, 5]
-U[3, 3, 30, 5]
+U[3, 33, 30, 5]
EOF2
# the history is in the state file, the skip mark gone once the transaction was committed
if grep -q '^schema	relation	52' state/s1.postgres-cdc.ckpt && ! grep -q '^schema	skip' state/s1.postgres-cdc.ckpt; then
  ok
else
  bad "the state file: $(cat state/s1.postgres-cdc.ckpt)"
fi

# 2. a DDL while stopped: reported at the first row after the restart, against the history
pg_psql -c "ALTER TABLE t DROP COLUMN a; INSERT INTO t VALUES (5, 50, 6)" || bad "DDL while stopped"
run s1 'id INT, b INT, c INT' --state-dir state >got.txt
expect "a DDL made while stopped" <<'EOF2'
-- schema change: public.t at LSN <lsn>: DROP COLUMN a
+I[5, 50, 6]
EOF2
# 3. and only once: a restart with nothing new reports nothing; a new row is a row
pg_psql -c "INSERT INTO t VALUES (6, 60, 7)" || bad "INSERT"
run s1 'id INT, b INT, c INT' --state-dir state >got.txt
expect "no change reported twice" <<'EOF2'
+I[6, 60, 7]
EOF2
# 4. TRUNCATE
pg_psql -c "TRUNCATE t; INSERT INTO t VALUES (7, 70, 8)" || bad "TRUNCATE"
run s1 'id INT, b INT, c INT' --state-dir state >got.txt
expect "TRUNCATE is a change" <<'EOF2'
-- schema change: public.t at LSN <lsn>: TRUNCATE TABLE
+I[7, 70, 8]
EOF2

# 5. without a state directory: a reopen in the same process replays the transaction right
run s2 'id INT, b INT, c INT' >got.txt
pg_psql <<'SQL' || bad "the changes (s2)"
BEGIN;
INSERT INTO t VALUES (8, 80, 9);
ALTER TABLE t ADD COLUMN d text DEFAULT 'x';
INSERT INTO t VALUES (9, 90, 10);
COMMIT;
SQL
run s2 'id INT, b INT, c INT' --reopen >got.txt
expect "a change inside a transaction without a state directory" <<'EOF2'
+I[8, 80, 9]
-- schema change: public.t at LSN <lsn>: ADD COLUMN d STRING DEFAULT 'x'
-- reopened
+I[9, 90, 10, x]
EOF2

echo "postgres_cdc_schema: $pass passed, $fail failed"
((fail == 0))
