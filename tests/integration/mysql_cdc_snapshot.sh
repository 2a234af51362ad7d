#!/usr/bin/env bash
# mysql-cdc's chunked, lock-free snapshot against real servers: a 1,000,000-row MariaDB table
# (ten columns) is snapshotted into PostgreSQL (jdbc) by two splits while a writer runs about
# 2,000 random inserts/updates/deletes per second on it. After the stream catches up the
# PostgreSQL table equals the source (every row compared, as text); a trigger on the sink
# checks that no change was applied twice or out of order (every update carries v = v + 1:
# an application that does not raise v is a doubled or stale one), and the job's log shows
# the reconciliation at work. Then the same with five SIGKILLs during the snapshot (the
# position file keeps the chunks not emitted): equal again. A table without a primary key
# gets the error that names chunk.key-column. Under the sanitizers (CDC_SANITIZED) the table
# has 200,000 rows.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
src=${CDC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
cd "$tmp" || exit 1
source "$src/tests/servers/mariadb.sh"
source "$src/tests/servers/postgres.sh"
source "$src/tests/integration/lib/snapshot_checks.sh"
N=${SNAPSHOT_ROWS:-1000000}
[[ -n ${CDC_SANITIZED:-} ]] && N=${SNAPSHOT_ROWS:-200000}
MY_EXTRA_ARGS="--log-bin=mbin --binlog-format=ROW --binlog-row-metadata=FULL --server-id=1
  --innodb-buffer-pool-size=256M --sync-binlog=0"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  my_stop
  pg_stop
  [[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
finish() {
  echo "mysql_cdc_snapshot: $pass passed, $fail failed"
  ((fail == 0))
  exit
}
if ! my_start cdcflow; then
  bad "could not start MariaDB"
  finish
fi
if ! pg_start cdcflow; then
  bad "could not start PostgreSQL"
  finish
fi
trap cleanup EXIT

# ---- source and sink -----------------------------------------------------------------------
my_sql -e "GRANT REPLICATION SLAVE, BINLOG MONITOR, SELECT ON *.* TO 'writer'@'%';
  CREATE TABLE t (id BIGINT PRIMARY KEY, v INT NOT NULL, a VARCHAR(40), b DOUBLE,
    c DATETIME(3), d DECIMAL(12,2), e INT, f VARCHAR(100), g DATE, h BIGINT);
  INSERT INTO t SELECT seq, 1, CONCAT('row-', seq), seq / 8, '2024-01-01 00:00:00.000' +
    INTERVAL seq SECOND, seq % 100000 / 100, seq % 1000, REPEAT('x', seq % 50),
    '2020-01-01' + INTERVAL seq % 2000 DAY, seq * 1000 FROM seq_1_to_$N;
  CREATE TABLE nokey (x INT, y INT); INSERT INTO nokey VALUES (1, 1);
  CREATE TABLE sig (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32), data VARCHAR(2048));
  GRANT INSERT ON cdcflow.sig TO 'writer'@'%';" || bad "source setup"

SINK_PSQL=pg_psql

cat >job.sql <<SQL
SET 'execution.checkpointing.interval' = '100ms';
CREATE TABLE src (id BIGINT NOT NULL, v INT, a STRING, b DOUBLE, c TIMESTAMP(3),
  d DECIMAL(12, 2), e INT, f STRING, g DATE, h BIGINT, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'mysql-cdc', 'hostname' = '127.0.0.1', 'port' = '$MY_PORT',
      'username' = 'writer', 'password' = '$MY_PASSWORD', 'database-name' = 'cdcflow',
      'table-name' = 't', 'server-id' = '911', 'scan.parallelism' = '2',
      'signal-data-collection' = 'cdcflow.sig');
CREATE TABLE dst (id BIGINT NOT NULL, v INT, a STRING, b DOUBLE, c TIMESTAMP(3),
  d DECIMAL(12, 2), e INT, f STRING, g DATE, h BIGINT, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'jdbc', 'url' = '$PG_URL', 'username' = 'postgres', 'table-name' = 't');
INSERT INTO dst SELECT * FROM src;
SQL

start_job() {
  "$bin" run job.sql --state-dir "$tmp/state" --log-level info >>job.out 2>>job.err &
  job=$!
  pids+=($job)
}

# The writer: about 2,000 statements a second (200 every 0.1 s) for $1 seconds, ids above
# $2 inserted fresh, updates raise v, deletes remove; one mariadb client reads them all.
writer() {
  local secs=$1 next=$2 seed=$3
  awk -v secs="$secs" -v nid="$next" -v seed="$seed" -v n="$N" 'BEGIN {
    srand(seed);
    for (tick = 0; tick < secs * 10; tick++) {
      for (i = 0; i < 200; i++) {
        r = rand();
        if (r < 0.3) {
          printf "INSERT INTO t VALUES (%d, 1, \"w-%d\", 0.5, NOW(3), 1.25, 7, \"new\", CURDATE(), %d);\n", nid, nid, nid;
          nid++;
        } else if (r < 0.85) {
          k = int(rand() * (nid - 1)) + 1;
          printf "UPDATE t SET v = v + 1, a = CONCAT(\"u-\", v), e = e + 1 WHERE id = %d;\n", k;
        } else {
          k = int(rand() * (nid - 1)) + 1;
          printf "DELETE FROM t WHERE id = %d;\n", k;
        }
      }
      fflush();
      system("sleep 0.1");
    }
  }' | mariadb --no-defaults --socket="$MY_SOCK" -u root cdcflow
}

# Rows as text, ordered by id, the same on both sides (into src.txt / sink.txt).
src_dump() {
  my_sql -N -B -e "SELECT id, v, a, FORMAT(b, 3, 'en_US'),
    CONCAT(DATE_FORMAT(c, '%Y-%m-%d %H:%i:%s.'), LEFT(DATE_FORMAT(c, '%f'), 3)),
    d, e, f, g, h FROM t ORDER BY id" >src.txt
}
sink_dump() {
  pg_psql -At -F $'\t' -c "SELECT id, v, a, to_char(b, 'FM999,999,999,990.000'),
    to_char(c, 'YYYY-MM-DD HH24:MI:SS.MS'), d, e, f, g, h FROM t ORDER BY id" >sink.txt
}
src_count() { my_sql -N -B -e "SELECT COUNT(*) FROM t"; }
# Waits (bounded) until the sink equals the source; 0 when it does, else shows the difference.
wait_equal() {
  local i
  src_dump
  for i in $(seq 1 120); do
    sink_dump
    cmp -s src.txt sink.txt && return 0
    sleep 1
  done
  diff src.txt sink.txt | head -10
  return 1
}

# ---- 1. snapshot under the writer ------------------------------------------------------------
snap_sink_setup
start_job
writer 8 $((N + 1)) 1 &
w=$!
pids+=($w)
snap_wait_done
wait "$w"
if wait_equal; then ok; else
  bad "sink differs from the source after the snapshot ($(src_count) source rows, $(pg_psql -At -c 'SELECT COUNT(*) FROM t') sink rows)"
fi
snap_check_snapshot

# ---- on demand: rows lost in the sink come back with a filtered re-snapshot, while streaming
NEXT=$(my_sql -N -B -e "SELECT MAX(id) + 1 FROM t")
writer 4 "$NEXT" 3 &
w=$!
pids+=($w)
pg_psql -c "DELETE FROM t WHERE id <= 2000" >/dev/null
if "$bin" signal mysql-cdc -o hostname=127.0.0.1 -o port="$MY_PORT" -o username=writer \
  -o password="$MY_PASSWORD" -o signal-data-collection=cdcflow.sig \
  --data-collections cdcflow.t --filter "id <= 2000" >signal.out 2>&1; then ok; else
  bad "cdcflow signal failed"
  cat signal.out
fi
wait "$w"
if wait_equal; then ok; else bad "sink differs from the source after the on-demand snapshot"; fi
grep -q "signal: snapshot of cdcflow.t where id <= 2000" job.err && ok ||
  bad "the job did not log the signal"
kill -TERM "$job"
wait "$job" 2>/dev/null

# ---- 2. five SIGKILLs during a snapshot -----------------------------------------------------
rm -rf "$tmp/state"
: >job.err
snap_sink_setup
NEXT=$(my_sql -N -B -e "SELECT MAX(id) + 1 FROM t")
writer 12 "$NEXT" 2 &
w=$!
pids+=($w)
snap_kill_rounds
wait "$w"
if wait_equal; then ok; else
  bad "sink differs from the source after $kills SIGKILLs"
fi
snap_check_restarts
kill -TERM "$job"
wait "$job" 2>/dev/null

# ---- 3. a table added to the pattern is snapshotted after a restart (newly-added-table) -------
my_sql -e "CREATE TABLE na1 (id INT PRIMARY KEY, v INT); CREATE TABLE na2 (id INT PRIMARY KEY, v INT);
  INSERT INTO na1 SELECT seq, 1 FROM seq_1_to_100; INSERT INTO na2 SELECT seq, 2 FROM seq_1_to_50;" ||
  bad "newly added: setup"
na_job() { # pattern: runs until its snapshot is done, then stops
  cat >na.sql <<SQL
CREATE TABLE src (id INT NOT NULL, v INT, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'mysql-cdc', 'hostname' = '127.0.0.1', 'port' = '$MY_PORT',
      'username' = 'writer', 'password' = '$MY_PASSWORD', 'database-name' = 'cdcflow',
      'table-name' = '$1', 'server-id' = '913', 'scan.newly-added-table.enabled' = 'true');
CREATE TABLE pr (id INT, v INT) WITH ('connector' = 'print');
INSERT INTO pr SELECT * FROM src;
SQL
  : >na.err
  "$bin" run na.sql --state-dir "$tmp/na-state" --log-level info >na.out 2>na.err &
  local j=$! i
  pids+=($j)
  for i in $(seq 1 100); do
    grep -q "snapshot done" na.err && break
    sleep 0.2
  done
  sleep 0.5 # (a commit saves the finished state)
  kill -TERM "$j"
  wait "$j" 2>/dev/null
}
na_job 'na1'
[[ $(grep -c '^+I' na.out) == 100 ]] && ok || bad "newly added: first run printed $(grep -c '^+I' na.out) rows, not 100"
na_job 'na[12]'
if [[ $(grep -c '^+I' na.out) == 50 ]] && grep -q "newly added table cdcflow.na2" na.err; then ok; else
  bad "newly added: the restart printed $(grep -c '^+I' na.out) rows, not na2's 50"
  cat na.err
fi

# ---- 4. a table without a key ----------------------------------------------------------------
cat >nokey.sql <<SQL
CREATE TABLE src (x INT, y INT)
WITH ('connector' = 'mysql-cdc', 'hostname' = '127.0.0.1', 'port' = '$MY_PORT',
      'username' = 'writer', 'password' = '$MY_PASSWORD', 'database-name' = 'cdcflow',
      'table-name' = 'nokey', 'server-id' = '912');
CREATE TABLE pr (x INT, y INT) WITH ('connector' = 'print');
INSERT INTO pr SELECT * FROM src;
SQL
if timeout 60 "$bin" run nokey.sql >nokey.out 2>nokey.err; then
  bad "a table without a key was snapshotted"
else
  grep -q "has no primary key" nokey.err && grep -q "chunk.key-column" nokey.err && ok ||
    { bad "no clear error for a table without a key"; cat nokey.err; }
fi
# the same with two splits: the split reading chunks ends with the one that failed
sed "s/'server-id' = '912'/'server-id' = '912', 'scan.parallelism' = '2'/" nokey.sql >nokey2.sql
timeout 60 "$bin" run nokey2.sql >nokey2.out 2>nokey2.err
rc=$?
[[ $rc -eq 1 ]] && grep -q "has no primary key" nokey2.err && ok ||
  bad "two splits, a table without a key: exit $rc (124: the job hung): $(tail -3 nokey2.err)"
finish
