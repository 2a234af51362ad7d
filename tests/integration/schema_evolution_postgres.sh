#!/usr/bin/env bash
# Schema changes from PostgreSQL (postgres-cdc, pgoutput) into PostgreSQL (jdbc) without a
# restart, per schema.change.behavior (README "Schema changes"). pgoutput carries no DDL: a
# change is a Relation message that differs from the last one (or from the one kept under
# --state-dir, for a DDL made while the job was stopped).
#  lenient (the default) with 'schema.evolution.columns' = 'all': ADD COLUMN with and
#    without DEFAULT, int4 -> int8, varchar(10) -> varchar(100) and -> text, DROP COLUMN (kept
#    in the sink), a DDL in the middle of a transaction (rows before and after it, one of them
#    touched only before the ALTER ... DEFAULT), a DDL while the job is stopped.
#  evolve: DROP COLUMN reaches the sink, TRUNCATE empties it.
#  exception: the job stops naming the change and what to set.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
src=${CDC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
cd "$tmp" || exit 1
source "$src/tests/servers/postgres.sh"
job=
cleanup() {
  [[ -n $job ]] && kill -KILL "$job" 2>/dev/null
  pg_stop
  [[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
finish() {
  echo "schema_evolution_postgres: $pass passed, $fail failed"
  ((fail == 0))
  exit
}
pg_start shop || {
  bad "could not start PostgreSQL"
  finish
}
trap cleanup EXIT
tgt() { psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U postgres -d replica "$@"; }
pg_psql -q -c "CREATE DATABASE replica" || bad "CREATE DATABASE replica"

write_job() { # TABLE POLICY
  local t=$1 policy=$2
  cat >"job-$t.sql" <<SQL
SET 'execution.checkpointing.interval' = '100ms';
${policy:+SET 'schema.change.behavior' = '$policy';}
CREATE TABLE src (id INT NOT NULL, a VARCHAR(10), n INT, d STRING, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'postgres-cdc', 'hostname' = '127.0.0.1', 'port' = '$PG_PORT',
      'username' = 'postgres', 'database-name' = 'shop', 'table-name' = '$t',
      'slot.name' = '${t}_slot', 'schema.evolution.columns' = 'all');
CREATE TABLE dst (id INT NOT NULL, a VARCHAR(10), n INT, d STRING, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:$PG_PORT/replica',
      'username' = 'postgres', 'table-name' = '$t');
INSERT INTO dst SELECT * FROM src;
SQL
}
setup_tables() {
  local t=$1
  pg_psql -q -c "CREATE TABLE $t (id int PRIMARY KEY, a varchar(10), n int, d text);
    ALTER TABLE $t REPLICA IDENTITY FULL;
    INSERT INTO $t VALUES (1, 'one', 1, 'd1'), (2, 'two', 2, 'd2'), (3, 'three', 3, 'd3')" ||
    bad "source $t"
  tgt -c "CREATE TABLE $t (id int PRIMARY KEY, a varchar(10), n int, d text)" || bad "sink $t"
}
start_job() {
  "$bin" run "job-$1.sql" --state-dir "$tmp/state-$1" --log-level info >>"job-$1.out" \
    2>>"job-$1.err" &
  job=$!
}
stop_job() {
  kill -TERM "$job" 2>/dev/null
  wait "$job" 2>/dev/null
  job=
}
src_cols() {
  pg_psql -At -c "SELECT string_agg(column_name, ', ' ORDER BY ordinal_position)
    FROM information_schema.columns WHERE table_name = '$1'"
}
sink_cols() {
  tgt -At -c "SELECT string_agg(column_name, ', ' ORDER BY ordinal_position)
    FROM information_schema.columns WHERE table_name = '$1'"
}
wait_equal() { # TABLE COLS
  local i
  pg_psql -At -F $'\t' -c "SELECT $2 FROM $1 ORDER BY id" >src.txt
  for i in $(seq 1 100); do
    tgt -At -F $'\t' -c "SELECT $2 FROM $1 ORDER BY id" >sink.txt 2>/dev/null
    cmp -s src.txt sink.txt && return 0
    sleep 0.2
  done
  diff src.txt sink.txt | head -10
  return 1
}
check() { # TABLE WHAT [COLS]
  local cols=${3:-$(src_cols "$1")}
  if wait_equal "$1" "$cols"; then ok; else
    bad "$2: $1 differs on ($cols); job log: $(grep -v DEBUG "job-$1.err" | tail -3)"
  fi
}

# ---- lenient -------------------------------------------------------------------------------------
T=len
setup_tables $T
write_job $T ""
start_job $T
check $T "lenient: the snapshot"
pg_psql -q -c "ALTER TABLE $T ADD COLUMN c1 int; UPDATE $T SET c1 = 11 WHERE id = 1;
  INSERT INTO $T VALUES (4, 'four', 4, 'd4', 44)"
check $T "lenient: ADD COLUMN"
pg_psql -q -c "ALTER TABLE $T ALTER COLUMN n TYPE bigint; UPDATE $T SET n = 5000000000 WHERE id = 2"
check $T "lenient: int4 -> int8"
pg_psql -q -c "ALTER TABLE $T ALTER COLUMN a TYPE varchar(100);
  UPDATE $T SET a = 'a value longer than ten' WHERE id = 3"
check $T "lenient: varchar(10) -> varchar(100)"
pg_psql -q -c "ALTER TABLE $T ALTER COLUMN a TYPE text; UPDATE $T SET a = repeat('x', 300) WHERE id = 4"
check $T "lenient: varchar(100) -> text"
pg_psql -q -c "ALTER TABLE $T DROP COLUMN d; UPDATE $T SET n = 7 WHERE id = 1"
check $T "lenient: DROP COLUMN (the sink keeps it)"
[[ $(sink_cols $T) == *"d"* ]] && ok || bad "lenient: the dropped column left the sink"
# a DDL inside a transaction: row 5 is touched only before the ALTER ... DEFAULT (its c2 is the
# default at the source), row 6 after it
pg_psql -q -c "BEGIN; INSERT INTO $T (id, a, n) VALUES (5, 'five', 5); UPDATE $T SET n = 8 WHERE id = 1;
  ALTER TABLE $T ADD COLUMN c2 int DEFAULT 5; INSERT INTO $T (id, a, n, c2) VALUES (6, 'six', 6, 66);
  COMMIT"
check $T "lenient: a DDL in the middle of a transaction"
stop_job
pg_psql -q -c "ALTER TABLE $T ADD COLUMN c3 int DEFAULT 7; INSERT INTO $T (id, a, n) VALUES (7, 'seven', 7)"
start_job $T
check $T "lenient: a DDL made while the job was stopped"
grep -q "schema change of public.$T at LSN" "job-$T.err" && ok ||
  bad "lenient: no schema change logged with its LSN"
stop_job

# ---- evolve --------------------------------------------------------------------------------------
T=evo
setup_tables $T
write_job $T evolve
start_job $T
check $T "evolve: the snapshot"
pg_psql -q -c "ALTER TABLE $T DROP COLUMN d; UPDATE $T SET n = 10 WHERE id = 1"
check $T "evolve: DROP COLUMN"
[[ $(sink_cols $T) == "id, a, n" ]] && ok || bad "evolve: sink columns $(sink_cols $T) after DROP"
pg_psql -q -c "TRUNCATE $T; INSERT INTO $T VALUES (9, 'nine', 9)"
check $T "evolve: TRUNCATE"
stop_job

# ---- exception -----------------------------------------------------------------------------------
T=exc
setup_tables $T
write_job $T exception
start_job $T
check $T "exception: the snapshot"
pg_psql -q -c "ALTER TABLE $T ADD COLUMN e int; INSERT INTO $T VALUES (4, 'four', 4, 'd4', 4)"
for i in $(seq 1 100); do kill -0 "$job" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$job" 2>/dev/null; then bad "exception: the job did not stop"; stop_job; else
  wait "$job" && bad "exception: exit status 0"
  job=
  grep -q "schema change of public.$T at LSN .*ADD COLUMN e INT.*'schema.change.behavior' is 'exception'" "job-$T.err" &&
    ok || bad "exception: the error does not name the change: $(grep -i error "job-$T.err" | head -3)"
fi
sed -i "s/SET 'schema.change.behavior' = 'exception';//" "job-$T.sql"
start_job $T
check $T "exception: resumed with the default (lenient)"
stop_job
finish
