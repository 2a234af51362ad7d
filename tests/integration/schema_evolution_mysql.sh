#!/usr/bin/env bash
# Schema changes from MariaDB (mysql-cdc) into PostgreSQL (jdbc) without a restart, per
# schema.change.behavior (README "Schema changes"). Each policy gets its own source table and
# sink table; after each DDL and the rows around it the sink is compared with the source.
#  lenient (the default) with 'schema.evolution.columns' = 'all': ADD COLUMN with and
#    without DEFAULT (existing sink rows get the default), INT -> BIGINT, VARCHAR(10) NOT NULL
#    -> VARCHAR(100) NULL, DROP COLUMN (kept in the sink, nullable), RENAME (a new column),
#    rows and a DDL in one stream of statements, a DDL made while the job is stopped,
#    TRUNCATE (not carried); the metrics count the changes.
#  evolve: DROP and RENAME applied to the sink, TRUNCATE empties it.
#  exception: the job stops naming the DDL, the table, the position and what to set; a
#    restart with 'lenient' resumes at the change.
#  ignore: the sink keeps its columns, rows go on (a widened column's values still fit).
#  declared columns (no 'all'): an added column is not carried, the job goes on.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
src=${CDC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
cd "$tmp" || exit 1
source "$src/tests/servers/mariadb.sh"
source "$src/tests/servers/postgres.sh"
MY_EXTRA_ARGS="--log-bin=mbin --binlog-format=ROW --binlog-row-metadata=FULL --server-id=1"
job=
cleanup() {
  [[ -n $job ]] && kill -KILL "$job" 2>/dev/null
  my_stop
  pg_stop
  [[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
finish() {
  echo "schema_evolution_mysql: $pass passed, $fail failed"
  ((fail == 0))
  exit
}
my_start cdcflow || {
  bad "could not start MariaDB"
  finish
}
pg_start cdcflow || {
  bad "could not start PostgreSQL"
  finish
}
trap cleanup EXIT
my_sql -e "GRANT REPLICATION SLAVE, BINLOG MONITOR, SELECT ON *.* TO 'writer'@'%'" ||
  bad "grants"

# job TABLE POLICY EXTRA_SRC_OPTIONS: writes job-TABLE.sql (source TABLE in MariaDB, sink TABLE
# in PostgreSQL, declared id INT, a VARCHAR(10) NOT NULL, n INT, d STRING)
write_job() {
  local t=$1 policy=$2 extra=$3
  cat >"job-$t.sql" <<SQL
SET 'execution.checkpointing.interval' = '100ms';
${policy:+SET 'schema.change.behavior' = '$policy';}
CREATE TABLE src (id INT NOT NULL, a VARCHAR(10) NOT NULL, n INT, d STRING,
  PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'mysql-cdc', 'hostname' = '127.0.0.1', 'port' = '$MY_PORT',
      'username' = 'writer', 'password' = '$MY_PASSWORD', 'database-name' = 'cdcflow',
      'table-name' = '$t', 'server-id' = '$((900 + RANDOM % 90))'$extra);
CREATE TABLE dst (id INT NOT NULL, a VARCHAR(10) NOT NULL, n INT, d STRING,
  PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'jdbc', 'url' = '$PG_URL', 'username' = 'postgres', 'table-name' = '$t');
INSERT INTO dst SELECT * FROM src;
SQL
}
setup_tables() {
  local t=$1
  my_sql -e "CREATE TABLE $t (id INT PRIMARY KEY, a VARCHAR(10) NOT NULL, n INT, d VARCHAR(20));
    INSERT INTO $t VALUES (1, 'one', 1, 'd1'), (2, 'two', 2, 'd2'), (3, 'three', 3, 'd3')" ||
    bad "source $t"
  pg_psql -q -c "CREATE TABLE $t (id INT PRIMARY KEY, a VARCHAR(10) NOT NULL, n INT, d TEXT)" ||
    bad "sink $t"
}
start_job() {
  local t=$1
  shift
  "$bin" run "job-$t.sql" --state-dir "$tmp/state-$t" --log-level info "$@" >>"job-$t.out" \
    2>>"job-$t.err" &
  job=$!
}
stop_job() {
  kill -TERM "$job" 2>/dev/null
  wait "$job" 2>/dev/null
  job=
}
# The source's columns (as the sink names them), in source order: "id, a, n, ..."
src_cols() {
  my_sql -N -B -e "SELECT GROUP_CONCAT(COLUMN_NAME ORDER BY ORDINAL_POSITION SEPARATOR ', ')
    FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'cdcflow' AND TABLE_NAME = '$1'"
}
sink_cols() {
  pg_psql -At -c "SELECT string_agg(column_name, ', ' ORDER BY ordinal_position)
    FROM information_schema.columns WHERE table_name = '$1'"
}
# Waits (bounded) until the sink's COLS equal the source's, row for row; shows the difference.
wait_equal() {
  local t=$1 cols=$2 i
  my_sql -N -B -e "SELECT $cols FROM $t ORDER BY id" | sed 's/\tNULL/\t/g; s/^NULL\t/\t/' >src.txt
  for i in $(seq 1 100); do
    pg_psql -At -F $'\t' -c "SELECT $cols FROM $t ORDER BY id" >sink.txt 2>/dev/null
    cmp -s src.txt sink.txt && return 0
    sleep 0.2
  done
  diff src.txt sink.txt | head -10
  return 1
}
check() { # check TABLE WHAT [COLS]: the sink equals the source on COLS (default: the source's)
  local cols=${3:-$(src_cols "$1")}
  if wait_equal "$1" "$cols"; then ok; else
    bad "$2: $1 differs on ($cols); job log: $(tail -3 "job-$1.err")"
  fi
}

# ---- lenient (the default), every column carried --------------------------------------------
T=len
setup_tables $T
write_job $T "" ", 'schema.evolution.columns' = 'all'"
start_job $T
check $T "lenient: the snapshot"
my_sql -e "ALTER TABLE $T ADD COLUMN c1 INT; UPDATE $T SET c1 = 11 WHERE id = 1;
  INSERT INTO $T VALUES (4, 'four', 4, 'd4', 44)"
check $T "lenient: ADD COLUMN without a default"
my_sql -e "ALTER TABLE $T ADD COLUMN c2 VARCHAR(5) NOT NULL DEFAULT 'zz'"
check $T "lenient: ADD COLUMN with a DEFAULT (existing rows get it)"
my_sql -e "ALTER TABLE $T MODIFY n BIGINT; UPDATE $T SET n = 5000000000 WHERE id = 2"
check $T "lenient: INT -> BIGINT"
my_sql -e "ALTER TABLE $T MODIFY a VARCHAR(100) NULL;
  UPDATE $T SET a = 'a value longer than ten' WHERE id = 3; UPDATE $T SET a = NULL WHERE id = 4"
check $T "lenient: VARCHAR(10) NOT NULL -> VARCHAR(100) NULL"
my_sql -e "ALTER TABLE $T DROP COLUMN d; UPDATE $T SET n = 7 WHERE id = 1;
  INSERT INTO $T (id, a, n) VALUES (5, 'five', 5)"
check $T "lenient: DROP COLUMN (the sink keeps it)"
[[ $(sink_cols $T) == *"d"* ]] && ok || bad "lenient: the dropped column left the sink"
pg_psql -At -c "SELECT is_nullable FROM information_schema.columns WHERE table_name = '$T'
  AND column_name = 'a'" | grep -qx YES && ok || bad "lenient: a is still NOT NULL in the sink"
# lenient carries a rename as a new column: rows get values in it as they change (so all change)
my_sql -e "ALTER TABLE $T RENAME COLUMN c1 TO c1r; UPDATE $T SET c1r = COALESCE(c1r, 0) + 1"
check $T "lenient: RENAME COLUMN (added under the new name)"
# rows, a DDL and rows in one stream of statements (one poll)
my_sql -e "INSERT INTO $T (id, a, n) VALUES (6, 'six', 6); ALTER TABLE $T ADD COLUMN c4 INT;
  INSERT INTO $T (id, a, n, c4) VALUES (7, 'seven', 7, 77); UPDATE $T SET c4 = 1 WHERE id = 6"
check $T "lenient: a DDL between rows of one stream"
# a DDL while the job is stopped
stop_job
my_sql -e "ALTER TABLE $T ADD COLUMN c3 INT DEFAULT 7; INSERT INTO $T (id, a, n) VALUES (8, 'eight', 8)"
start_job $T
check $T "lenient: a DDL made while the job was stopped"
grep -q "schema change of cdcflow.$T at binlog" "job-$T.err" && ok ||
  bad "lenient: no schema change logged with its position"
# a restart with nothing new keeps the evolved columns
stop_job
start_job $T
my_sql -e "UPDATE $T SET c3 = 9 WHERE id = 1"
check $T "lenient: a restart keeps the evolved columns"
my_sql -e "TRUNCATE TABLE $T"
sleep 1
[[ $(pg_psql -At -c "SELECT COUNT(*) FROM $T") -gt 0 ]] && ok ||
  bad "lenient: TRUNCATE emptied the sink"
grep -q "TRUNCATE is not carried" "job-$T.err" && ok || bad "lenient: TRUNCATE not logged"
stop_job

# ---- evolve: drops and renames reach the sink, TRUNCATE empties it -----------------------------
T=evo
setup_tables $T
write_job $T evolve ", 'schema.evolution.columns' = 'all'"
start_job $T
check $T "evolve: the snapshot"
my_sql -e "ALTER TABLE $T DROP COLUMN d; UPDATE $T SET n = 10 WHERE id = 1"
check $T "evolve: DROP COLUMN"
[[ $(sink_cols $T) == "id, a, n" ]] && ok || bad "evolve: sink columns $(sink_cols $T) after DROP"
my_sql -e "ALTER TABLE $T RENAME COLUMN n TO m; UPDATE $T SET m = 20 WHERE id = 2"
check $T "evolve: RENAME COLUMN"
[[ $(sink_cols $T) == "id, a, m" ]] && ok || bad "evolve: sink columns $(sink_cols $T) after RENAME"
my_sql -e "TRUNCATE TABLE $T; INSERT INTO $T VALUES (9, 'nine', 9)"
check $T "evolve: TRUNCATE"
stop_job

# ---- exception: stops at the change; a restart with lenient resumes there ----------------------
T=exc
setup_tables $T
write_job $T exception ", 'schema.evolution.columns' = 'all'"
start_job $T
check $T "exception: the snapshot"
my_sql -e "UPDATE $T SET n = 100 WHERE id = 1; ALTER TABLE $T ADD COLUMN e INT DEFAULT 5"
for i in $(seq 1 100); do kill -0 "$job" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$job" 2>/dev/null; then bad "exception: the job did not stop"; stop_job; else
  wait "$job"
  code=$?
  job=
  ((code != 0)) && ok || bad "exception: exit status 0"
  grep -q "schema change of cdcflow.$T at binlog .*ADD COLUMN e INT.*ALTER TABLE $T ADD COLUMN e INT DEFAULT 5.*'schema.change.behavior' is 'exception'" "job-$T.err" &&
    ok || bad "exception: the error does not name the change: $(grep -i error "job-$T.err" | head -3)"
  grep -q "SET 'schema.change.behavior' = 'lenient'" "job-$T.err" && ok ||
    bad "exception: no hint"
fi
check $T "exception: the rows before the change" "id, a, n, d"
sed -i "s/SET 'schema.change.behavior' = 'exception';/SET 'schema.change.behavior' = 'lenient';/" "job-$T.sql"
start_job $T
check $T "exception: resumed with lenient"
stop_job

# ---- ignore (the table's own option, over the job's SET): the sink keeps its columns ----------
T=ign
setup_tables $T
write_job $T evolve ", 'schema.evolution.columns' = 'all', 'schema.change.behavior' = 'ignore'"
start_job $T
check $T "ignore: the snapshot"
my_sql -e "ALTER TABLE $T ADD COLUMN e INT; ALTER TABLE $T MODIFY n BIGINT;
  UPDATE $T SET n = 42, e = 1 WHERE id = 1; INSERT INTO $T VALUES (4, 'four', 4, 'd4', 4)"
check $T "ignore: rows after the changes" "id, a, n, d"
[[ $(sink_cols $T) == "id, a, n, d" ]] && ok || bad "ignore: sink columns $(sink_cols $T)"
stop_job

# ---- try_evolve: what the sink refuses is left, the rows go on; evolve fails on it ------------
T=try
setup_tables $T
write_job $T try_evolve ", 'schema.evolution.columns' = 'all'"
start_job $T
check $T "try_evolve: the snapshot"
my_sql -e "ALTER TABLE $T ADD COLUMN ts DATETIME DEFAULT CURRENT_TIMESTAMP;
  UPDATE $T SET n = 60 WHERE id = 1"
check $T "try_evolve: rows after a change the sink refused" "id, a, n, d"
[[ $(sink_cols $T) == "id, a, n, d" ]] && ok || bad "try_evolve: sink columns $(sink_cols $T)"
grep -q "is not applied to the sink" "job-$T.err" && ok || bad "try_evolve: no warning"
my_sql -e "ALTER TABLE $T ADD COLUMN e INT; UPDATE $T SET e = 3 WHERE id = 2"
check $T "try_evolve: a later change the sink takes" "id, a, n, d, e"
stop_job
T=evf
setup_tables $T
write_job $T evolve ", 'schema.evolution.columns' = 'all'"
start_job $T
check $T "evolve: the snapshot"
my_sql -e "ALTER TABLE $T ADD COLUMN ts DATETIME DEFAULT CURRENT_TIMESTAMP"
for i in $(seq 1 100); do kill -0 "$job" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$job" 2>/dev/null; then bad "evolve: the job went on past a change the sink refused"; stop_job; else
  wait "$job" && bad "evolve: exit status 0 after a refused change"
  job=
  grep -q "applying ADD COLUMN ts .* to table .*schema.change.behavior' = 'evolve'" "job-$T.err" && ok ||
    bad "evolve: the error does not say what failed: $(grep -i error "job-$T.err" | head -3)"
fi

# ---- declared columns only: an added column is not carried, the job goes on -------------------
T=dcl
setup_tables $T
write_job $T "" ""
start_job $T
check $T "declared: the snapshot"
my_sql -e "ALTER TABLE $T ADD COLUMN e INT; UPDATE $T SET n = 50, e = 2 WHERE id = 1"
check $T "declared: rows after ADD COLUMN" "id, a, n, d"
[[ $(sink_cols $T) == "id, a, n, d" ]] && ok || bad "declared: sink columns $(sink_cols $T)"
grep -q "column e is not declared" "job-$T.err" && ok || bad "declared: no note about column e"
stop_job
# a new snapshot after the source dropped a declared column: NULL for it, no failure
my_sql -e "ALTER TABLE $T DROP COLUMN d; UPDATE $T SET n = 51 WHERE id = 1"
rm -rf "$tmp/state-$T"
start_job $T
check $T "declared: a snapshot after a declared column was dropped" "id, a, n"
[[ -z $(pg_psql -At -c "SELECT id FROM $T WHERE d IS NOT NULL") ]] && ok ||
  bad "declared: the dropped column's values stayed in the new snapshot's rows"
stop_job

# ---- a file catalog: the stored definitions follow -------------------------------------------
T=fcat
setup_tables $T
cat >"job-$T.sql" <<SQL
SET 'execution.checkpointing.interval' = '100ms';
CREATE CATALOG fc WITH ('type' = 'file', 'path' = '$tmp/fc');
CREATE TABLE IF NOT EXISTS fc.default_database.src (id INT NOT NULL, a VARCHAR(10) NOT NULL,
  n INT, d STRING, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'mysql-cdc', 'hostname' = '127.0.0.1', 'port' = '$MY_PORT',
      'username' = 'writer', 'password' = '$MY_PASSWORD', 'database-name' = 'cdcflow',
      'table-name' = '$T', 'server-id' = '988', 'schema.evolution.columns' = 'all');
CREATE TABLE IF NOT EXISTS fc.default_database.dst (id INT NOT NULL, a VARCHAR(10) NOT NULL,
  n INT, d STRING, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'jdbc', 'url' = '$PG_URL', 'username' = 'postgres', 'table-name' = '$T');
INSERT INTO fc.default_database.dst SELECT * FROM fc.default_database.src;
SQL
start_job $T
check $T "file catalog: the snapshot"
my_sql -e "ALTER TABLE $T ADD COLUMN f INT; UPDATE $T SET f = 5 WHERE id = 1"
check $T "file catalog: ADD COLUMN"
stop_job
n=$(grep -rl '`f` INT' "$tmp/fc" 2>/dev/null | wc -l)
((n == 2)) && ok || bad "file catalog: $n stored definitions have the new column, 2 expected"
start_job $T
my_sql -e "UPDATE $T SET f = 6 WHERE id = 2"
check $T "file catalog: a restart plans with the stored, evolved definitions"
stop_job

# ---- every change under evolve, try_evolve and ignore (lenient: the first section) -----------
# The same DDLs and rows as lenient's; the sink must equal the source on the columns the
# policy carries (ignore: the declared ones the source still has).
matrix() {
  local P=$1 T=m_$1 cols big=5000000000 long='a value longer than ten'
  setup_tables $T
  write_job $T "$P" ", 'schema.evolution.columns' = 'all'"
  start_job $T
  carried() { if [[ $P == ignore ]]; then echo "$1"; else src_cols $T; fi; }
  [[ $P == ignore ]] && big=42 && long=short
  check $T "$P: the snapshot" "$(carried 'id, a, n, d')"
  my_sql -e "ALTER TABLE $T ADD COLUMN c1 INT; UPDATE $T SET c1 = 11 WHERE id = 1;
    INSERT INTO $T VALUES (4, 'four', 4, 'd4', 44)"
  check $T "$P: ADD COLUMN" "$(carried 'id, a, n, d')"
  my_sql -e "ALTER TABLE $T ADD COLUMN c2 VARCHAR(5) NOT NULL DEFAULT 'zz'"
  check $T "$P: ADD COLUMN with a DEFAULT" "$(carried 'id, a, n, d')"
  my_sql -e "ALTER TABLE $T MODIFY n BIGINT; UPDATE $T SET n = $big WHERE id = 2"
  check $T "$P: INT -> BIGINT" "$(carried 'id, a, n, d')"
  my_sql -e "ALTER TABLE $T MODIFY a VARCHAR(100) NULL; UPDATE $T SET a = '$long' WHERE id = 3"
  [[ $P != ignore ]] && my_sql -e "UPDATE $T SET a = NULL WHERE id = 4"
  check $T "$P: VARCHAR(10) NOT NULL -> VARCHAR(100) NULL" "$(carried 'id, a, n, d')"
  my_sql -e "ALTER TABLE $T DROP COLUMN d; UPDATE $T SET n = 7 WHERE id = 1;
    INSERT INTO $T (id, a, n) VALUES (5, 'five', 5)"
  check $T "$P: DROP COLUMN" "$(carried 'id, a, n')"
  my_sql -e "ALTER TABLE $T RENAME COLUMN c1 TO c1r; UPDATE $T SET c1r = COALESCE(c1r, 0) + 1"
  check $T "$P: RENAME COLUMN" "$(carried 'id, a, n')"
  my_sql -e "INSERT INTO $T (id, a, n) VALUES (6, 'six', 6); ALTER TABLE $T ADD COLUMN c4 INT;
    INSERT INTO $T (id, a, n, c4) VALUES (7, 'seven', 7, 77); UPDATE $T SET c4 = 1 WHERE id = 6"
  check $T "$P: a DDL between rows of one stream" "$(carried 'id, a, n')"
  stop_job
  my_sql -e "ALTER TABLE $T ADD COLUMN c3 INT DEFAULT 7; INSERT INTO $T (id, a, n) VALUES (8, 'eight', 8)"
  start_job $T
  check $T "$P: a DDL made while the job was stopped" "$(carried 'id, a, n')"
  my_sql -e "TRUNCATE TABLE $T; INSERT INTO $T (id, a, n) VALUES (9, 'nine', 9)"
  if [[ $P == ignore ]]; then
    sleep 1
    [[ $(pg_psql -At -c "SELECT COUNT(*) FROM $T") -gt 1 ]] && ok || bad "$P: TRUNCATE was carried"
  else
    check $T "$P: TRUNCATE"
  fi
  case $P in
  evolve | try_evolve) cols="id, a, n, c1r, c2, c4, c3" ;;
  ignore) cols="id, a, n, d" ;;
  esac
  [[ $(sink_cols $T) == "$cols" ]] && ok || bad "$P: sink columns $(sink_cols $T), expected $cols"
  stop_job
}
for P in evolve try_evolve ignore; do matrix $P; done

# ---- a DDL in the middle of a snapshot read by two splits ---------------------------------------
T=snap
my_sql -e "CREATE TABLE $T (id INT PRIMARY KEY, a VARCHAR(10) NOT NULL, n INT, d VARCHAR(20));
  INSERT INTO $T SELECT seq, CONCAT('r', seq), seq, 'd' FROM seq_1_to_100000" || bad "source $T"
pg_psql -q -c "CREATE TABLE $T (id INT PRIMARY KEY, a VARCHAR(10) NOT NULL, n INT, d TEXT)" ||
  bad "sink $T"
write_job $T "" ", 'schema.evolution.columns' = 'all', 'scan.parallelism' = '2',
      'scan.incremental.snapshot.chunk.size' = '500'"
start_job $T
for i in $(seq 1 100); do
  [[ $(pg_psql -At -c "SELECT COUNT(*) FROM $T") -gt 2000 ]] && break
  sleep 0.05
done
my_sql -e "ALTER TABLE $T ADD COLUMN e INT DEFAULT 3; UPDATE $T SET e = 4, n = n + 1 WHERE id % 1000 = 0"
check $T "a DDL during a snapshot read by two splits"
grep -q "stopping for the new plan" "job-$T.err" && ok ||
  bad "snapshot: the other split did not stop for the new plan"
stop_job

grep -c "schema change of cdcflow.len at" "job-len.err" | grep -qv '^0$' && ok ||
  bad "no schema change lines"
finish
