#!/usr/bin/env bash
# postgres-cdc's chunked, lock-free snapshot against a real PostgreSQL 15: a 1,000,000-row table
# (ten columns) is snapshotted into another database of the same server (jdbc) by two splits
# while a writer runs about 2,000 random inserts/updates/deletes per second on it. After the
# stream catches up the sink equals the source (every row compared, as text); a trigger on the
# sink checks that no change was applied twice or out of order (every update raises v: an
# application that does not is a doubled or stale one), and the job's log shows the
# reconciliation at work. Then the same with five SIGKILLs during the snapshot (the state file
# keeps the chunks not emitted): equal again, and the last run read less than the table. A
# table without a primary key is read by ctid ranges in one transaction. Under the sanitizers
# (CDC_SANITIZED) the table has 200,000 rows.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
src=${CDC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
cd "$tmp" || exit 1
# shellcheck source=../servers/postgres.sh
source "$src/tests/servers/postgres.sh"
source "$src/tests/integration/lib/snapshot_checks.sh"
N=${SNAPSHOT_ROWS:-1000000}
[[ -n ${CDC_SANITIZED:-} ]] && N=${SNAPSHOT_ROWS:-200000}
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  pg_stop
  [[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"
}
finish() {
  echo "postgres_cdc_snapshot: $pass passed, $fail failed"
  ((fail == 0))
  exit
}
if ! pg_start cdcflow; then
  bad "could not start PostgreSQL 15"
  finish
fi
trap cleanup EXIT
sink() { PGTZ=UTC psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U postgres -d replica "$@"; }

# ---- source and sink -----------------------------------------------------------------------
pg_psql -c "CREATE DATABASE replica" >/dev/null || bad "CREATE DATABASE replica"
pg_psql <<SQL >/dev/null || bad "source setup"
CREATE TABLE t (id bigint PRIMARY KEY, v int NOT NULL, a varchar(40), b double precision,
  c timestamp(3), d numeric(12,2), e int, f varchar(100), g date, h bigint);
ALTER TABLE t REPLICA IDENTITY FULL;
INSERT INTO t SELECT s, 1, 'row-' || s, s / 8.0, '2024-01-01'::timestamp + s * interval '1 s',
  (s % 100000) / 100.0, s % 1000, repeat('x', (s % 50)::int), DATE '2020-01-01' + (s % 2000)::int,
  s * 1000 FROM generate_series(1, $N) s;
CREATE TABLE nokey (x int, y int);
ALTER TABLE nokey REPLICA IDENTITY FULL;
INSERT INTO nokey SELECT s, s * 2 FROM generate_series(1, 5000) s;
SQL

SINK_PSQL=sink

# job.sql with the slot $1
write_job() {
  cat >job.sql <<SQL
SET 'execution.checkpointing.interval' = '100ms';
CREATE TABLE src (id BIGINT NOT NULL, v INT, a STRING, b DOUBLE, c TIMESTAMP(3),
  d DECIMAL(12, 2), e INT, f STRING, g DATE, h BIGINT, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'postgres-cdc', 'hostname' = '127.0.0.1', 'port' = '$PG_PORT',
      'username' = 'postgres', 'database-name' = 'cdcflow', 'table-name' = 't',
      'slot.name' = '$1', 'scan.parallelism' = '2');
CREATE TABLE dst (id BIGINT NOT NULL, v INT, a STRING, b DOUBLE, c TIMESTAMP(3),
  d DECIMAL(12, 2), e INT, f STRING, g DATE, h BIGINT, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:$PG_PORT/replica',
      'username' = 'postgres', 'table-name' = 't');
INSERT INTO dst SELECT * FROM src;
SQL
}

start_job() {
  "$bin" run job.sql --state-dir "$tmp/state" --log-level info >>job.out 2>>job.err &
  job=$!
  pids+=($job)
}

# The writer: about 2,000 statements a second (200 every 0.1 s) for $1 seconds, ids from $2
# inserted fresh, updates raise v, deletes remove; one psql reads them all.
writer() {
  local secs=$1 nid=$2 seed=$3
  awk -v secs="$secs" -v nid="$nid" -v seed="$seed" 'BEGIN {
    srand(seed);
    for (tick = 0; tick < secs * 10; tick++) {
      for (i = 0; i < 200; i++) {
        r = rand();
        if (r < 0.3) {
          printf "INSERT INTO t VALUES (%d, 1, '\''w-%d'\'', 0.5, now(), 1.25, 7, '\''new'\'', current_date, %d);\n", nid, nid, nid;
          nid++;
        } else if (r < 0.85) {
          k = int(rand() * (nid - 1)) + 1;
          printf "UPDATE t SET v = v + 1, a = '\''u-'\'' || v, e = e + 1 WHERE id = %d;\n", k;
        } else {
          k = int(rand() * (nid - 1)) + 1;
          printf "DELETE FROM t WHERE id = %d;\n", k;
        }
      }
      fflush();
      system("sleep 0.1");
    }
  }' | pg_psql -q >/dev/null
}

# Rows as text, ordered by id, the same query on both sides.
dump_q="SELECT id, v, a, b, c, d, e, f, g, h FROM t ORDER BY id"
# Waits (bounded) until the sink equals the source; 0 when it does, else shows the difference.
wait_equal() {
  local i
  pg_psql -At -F $'\t' -c "$dump_q" >src.txt
  for i in $(seq 1 120); do
    sink -At -F $'\t' -c "$dump_q" >sink.txt
    cmp -s src.txt sink.txt && return 0
    sleep 1
  done
  diff src.txt sink.txt | head -10
  return 1
}

# ---- 1. snapshot under the writer ------------------------------------------------------------
snap_sink_setup
write_job t_slot
start_job
writer 8 $((N + 1)) 1 &
w=$!
pids+=($w)
snap_wait_done
wait "$w"
if wait_equal; then ok; else
  bad "sink differs from the source after the snapshot ($(pg_psql -At -c 'SELECT count(*) FROM t') source rows, $(sink -At -c 'SELECT count(*) FROM t') sink rows)"
fi
snap_check_snapshot
slots=$(pg_psql -At -c "SELECT string_agg(slot_name, ',') FROM pg_replication_slots WHERE slot_name LIKE 't_slot%'")
[[ $slots == t_slot ]] && ok || bad "slots after the snapshot: $slots"
kill -TERM "$job"
wait "$job" 2>/dev/null

# ---- 2. five SIGKILLs during a snapshot -----------------------------------------------------
rm -rf "$tmp/state"
: >job.err
snap_sink_setup
write_job t2_slot
NEXT=$(pg_psql -At -c "SELECT max(id) + 1 FROM t")
writer 12 "$NEXT" 2 &
w=$!
pids+=($w)
snap_kill_rounds
wait "$w"
grep -q "resumed from the saved ranges" job.err && ok || bad "no run resumed from the saved ranges"
if wait_equal; then ok; else
  bad "sink differs from the source after $kills SIGKILLs"
fi
snap_check_restarts
kill -TERM "$job"
wait "$job" 2>/dev/null

# ---- 3. a table without a key: ctid ranges in one transaction -------------------------------
cat >nokey.sql <<SQL
CREATE TABLE src (x INT, y INT)
WITH ('connector' = 'postgres-cdc', 'hostname' = '127.0.0.1', 'port' = '$PG_PORT',
      'username' = 'postgres', 'database-name' = 'cdcflow', 'table-name' = 'nokey',
      'slot.name' = 'nokey_slot', 'scan.incremental.snapshot.chunk.size' = '1000');
CREATE TABLE pr (x INT, y INT) WITH ('connector' = 'print');
INSERT INTO pr SELECT * FROM src;
SQL
"$bin" run nokey.sql --log-level info >nokey.out 2>nokey.err &
nk=$!
pids+=($nk)
for i in $(seq 1 100); do
  grep -q "made permanent" nokey.err && break
  sleep 0.2
done
kill -TERM "$nk"
wait "$nk" 2>/dev/null
grep -q "has no primary key.*holds one transaction, read in ctid ranges" nokey.err && ok ||
  { bad "no log line for the keyless snapshot"; cat nokey.err; }
got=$(grep -c '^+I\[' nokey.out)
sumx=$(grep '^+I\[' nokey.out | tr -d '+I[]' | awk -F', ' '{s += $1} END {print s}')
[[ $got == 5000 && $sumx == 12502500 ]] && ok || bad "keyless snapshot: $got rows (sum $sumx), expected 5000 (12502500)"

# ---- 4. a chunk key that is no declared column: clear errors ---------------------------------
cat >undeclared.sql <<SQL
CREATE TABLE src (v INT, a STRING)
WITH ('connector' = 'postgres-cdc', 'hostname' = '127.0.0.1', 'port' = '$PG_PORT',
      'username' = 'postgres', 'database-name' = 'cdcflow', 'table-name' = 't',
      'slot.name' = 'undeclared_slot');
CREATE TABLE pr (v INT, a STRING) WITH ('connector' = 'print');
INSERT INTO pr SELECT * FROM src;
SQL
if timeout 60 "$bin" run undeclared.sql >undeclared.out 2>undeclared.err; then
  bad "a snapshot without its key column ran"
else
  grep -q 'primary key column "id" of "public.t" is not a declared column' undeclared.err &&
    grep -q "chunk.key-column" undeclared.err && ok || { bad "no clear error for an undeclared key"; cat undeclared.err; }
fi
sed -i "s/'slot.name' = 'undeclared_slot'/'slot.name' = 'undeclared_slot', 'scan.incremental.snapshot.chunk.key-column' = 'nope'/" undeclared.sql
if timeout 60 "$bin" run undeclared.sql >undeclared.out 2>undeclared.err; then
  bad "a chunk key column that does not exist was accepted"
else
  grep -q "'scan.incremental.snapshot.chunk.key-column' = 'nope' is not a column" undeclared.err && ok ||
    { bad "no clear error for a wrong chunk.key-column"; cat undeclared.err; }
fi
finish
