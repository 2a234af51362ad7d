#!/usr/bin/env bash
# postgres-cdc's on-demand snapshots (Debezium's signalling) against a real PostgreSQL 15: a job
# with 'signal-data-collection' = 'public.signals' (the publication it creates covers both
# tables) finishes its initial snapshot; then, while a writer runs, rows of the sink are deleted
# and changed behind the job's back, `cdcflow signal postgres-cdc ... --filter 'id <= 2000'`
# inserts an execute-snapshot, and once "on-demand snapshot done" is logged the sink equals the
# source again, except a corrupted row outside the filter, left as it was. Signals of an unknown
# table and an unknown type are warned and skipped (the job runs on); the signal rows never
# reach the sink. Then a whole-table re-snapshot in chunks of 5 rows is SIGKILLed mid-way: the
# restarted job resumes it from the state file, and the sink equals the source. A job in
# 'latest-offset' mode (no initial snapshot) re-snapshots on a signal too. A signal table missing
# from a publication the job may not change, or missing altogether, is a clear error.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
src=${CDC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
cd "$tmp" || exit 1
# shellcheck source=../servers/postgres.sh
source "$src/tests/servers/postgres.sh"
N=20000
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  pg_stop
  [[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"
}
finish() {
  echo "postgres_cdc_signal: $pass passed, $fail failed"
  ((fail == 0))
  exit
}
if ! pg_start cdcflow; then
  bad "could not start PostgreSQL 15"
  finish
fi
trap cleanup EXIT
sink() { PGTZ=UTC psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U postgres -d replica "$@"; }

pg_psql -c "CREATE DATABASE replica" >/dev/null || bad "CREATE DATABASE replica"
pg_psql <<SQL >/dev/null || bad "source setup"
CREATE TABLE t (id bigint PRIMARY KEY, v int NOT NULL, a varchar(40));
ALTER TABLE t REPLICA IDENTITY FULL;
INSERT INTO t SELECT s, 1, 'row-' || s FROM generate_series(1, $N) s;
CREATE TABLE signals (id varchar(42) PRIMARY KEY, type varchar(32) NOT NULL, data text);
SQL
sink -c "CREATE TABLE t (id bigint PRIMARY KEY, v int NOT NULL, a varchar(40))" >/dev/null ||
  bad "sink setup"

# job.sql: slot $1, startup mode $2, chunk size $3
write_job() {
  cat >job.sql <<SQL
SET 'execution.checkpointing.interval' = '300ms';
CREATE TABLE src (id BIGINT NOT NULL, v INT, a STRING, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'postgres-cdc', 'hostname' = '127.0.0.1', 'port' = '$PG_PORT',
      'username' = 'postgres', 'database-name' = 'cdcflow', 'table-name' = 't',
      'slot.name' = '$1', 'scan.startup.mode' = '$2', 'scan.parallelism' = '2',
      'scan.incremental.snapshot.chunk.size' = '$3',
      'signal-data-collection' = 'public.signals');
CREATE TABLE dst (id BIGINT NOT NULL, v INT, a STRING, PRIMARY KEY (id) NOT ENFORCED)
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
# waits (bounded, 60 s) until the log has $2 lines matching $1 while the job lives
wait_log() {
  local i
  for i in $(seq 1 300); do
    (($(grep -c -- "$1" job.err) >= $2)) && return 0
    kill -0 "$job" 2>/dev/null || return 1
    sleep 0.2
  done
  return 1
}
signal() {
  "$bin" signal postgres-cdc -o hostname=127.0.0.1 -o port="$PG_PORT" -o username=postgres \
    -o database-name=cdcflow -o signal-data-collection=public.signals "$@" >>signal.out 2>&1
}
# The writer: 100 statements every 0.1 s for $1 seconds on ids 1..3000 (it races the filtered
# re-snapshot) and new ids from $2 (never on id 10000, corrupted in the sink and left so).
writer() {
  awk -v secs="$1" -v nid="$2" 'BEGIN {
    srand(7);
    for (tick = 0; tick < secs * 10; tick++) {
      for (i = 0; i < 100; i++) {
        r = rand();
        if (r < 0.3) { printf "INSERT INTO t VALUES (%d, 1, '\''w-%d'\'');\n", nid, nid; nid++; }
        else if (r < 0.9) printf "UPDATE t SET v = v + 1 WHERE id = %d;\n", 1 + int(rand() * 3000);
        else printf "DELETE FROM t WHERE id = %d;\n", 1 + int(rand() * 3000);
      }
      fflush();
      system("sleep 0.1");
    }
  }' | pg_psql -q >/dev/null
}
dump_q="SELECT id, v, a FROM t WHERE id <> 10000 ORDER BY id"
wait_equal() {
  local i
  pg_psql -At -F $'\t' -c "$dump_q" >src.txt
  for i in $(seq 1 60); do
    sink -At -F $'\t' -c "$dump_q" >sink.txt
    cmp -s src.txt sink.txt && return 0
    sleep 1
  done
  diff src.txt sink.txt | head -10
  return 1
}

# ---- 1. after the initial snapshot: a filtered re-snapshot repairs the sink ------------------
write_job sig_slot initial 1000
start_job
wait_log "snapshot done" 1 || bad "the initial snapshot did not finish"
pubs=$(pg_psql -At -c "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_publication_tables WHERE pubname = 'cdcflow_publication'")
[[ $pubs == signals,t ]] && ok || bad "the publication covers \"$pubs\", not signals,t"
writer 4 $((N + 1)) &
w=$!
pids+=($w)
sink -c "DELETE FROM t WHERE id <= 1000; UPDATE t SET a = 'corrupt' WHERE id BETWEEN 1001 AND 2000 OR id = 10000" >/dev/null
if signal --data-collections public.t --filter 'id <= 2000'; then ok; else
  bad "cdcflow signal failed"
  cat signal.out
fi
if wait_log "on-demand snapshot done" 1; then ok; else
  bad "no 'on-demand snapshot done' in the log"
  tail -20 job.err
fi
wait "$w"
if wait_equal; then ok; else bad "sink differs from the source after the on-demand snapshot"; fi
[[ $(sink -At -c "SELECT a FROM t WHERE id = 10000") == corrupt ]] && ok ||
  bad "the row outside the filter was written again"
grep -q "signal: snapshot of public.t where id <= 2000" job.err && ok || bad "the job did not log the signal"
rows=$(grep -o "on-demand snapshot done: [0-9]* rows" job.err | awk '{print $4}')
[[ -n $rows ]] && ((rows > 1500 && rows <= 2000)) && ok ||
  bad "the on-demand snapshot emitted ${rows:-no} rows, not the (about) 2000 the filter selects"

# ---- 2. unknown table, unknown type: warned, skipped, the job runs on ------------------------
signal --data-collections public.nope || bad "cdcflow signal (unknown table) failed"
pg_psql -c "INSERT INTO signals VALUES ('x1', 'pause-snapshot', '{}')" >/dev/null
wait_log 'type "pause-snapshot" is not supported' 1 && ok || bad "no warning for an unknown signal type"
grep -q "public.nope is not the table this source captures" job.err && ok ||
  bad "no warning for a signal naming another table"
kill -0 "$job" 2>/dev/null && ok || bad "the job stopped on a bad signal"
[[ $(sink -At -c "SELECT count(*) FROM t WHERE a IS NULL OR id IS NULL") == 0 ]] && ok ||
  bad "signal rows reached the sink"
# a bad option: a clear error
"$bin" signal postgres-cdc -o hostname=127.0.0.1 -o port="$PG_PORT" -o username=postgres \
  -o database-name=cdcflow -o signal-data-collection=signals --data-collections t >bad.out 2>&1 &&
  bad "a signal table without its schema was accepted" ||
  { grep -q "is not \"schema.table\"" bad.out && ok || { bad "no clear error"; cat bad.out; }; }

# ---- 3. SIGKILL during a whole-table re-snapshot: the restart resumes it ---------------------
kill -TERM "$job"
wait "$job" 2>/dev/null
cat job.err >>job.all; : >job.err
write_job sig_slot initial 5 # (the slot exists: no initial snapshot, chunks of 5 rows)
start_job
wait_log "streaming changes from slot" 1 || bad "the job did not stream"
sink -c "UPDATE t SET a = 'corrupt' WHERE id % 7 = 0" >/dev/null
signal --data-collections t || bad "cdcflow signal (bare table name) failed"
wait_log "signal: snapshot of t" 1 || bad "the bare table name was not taken"
# as soon as the re-snapshot is under way (the first corrupted rows repaired), SIGKILL (not
# later: the chunks are fast, and a machine under load may poll the sink slowly)
corrupt=$(sink -At -c "SELECT count(*) FROM t WHERE a = 'corrupt' AND id <> 10000")
for i in $(seq 1 500); do
  (($(sink -At -c "SELECT count(*) FROM t WHERE a = 'corrupt' AND id <> 10000") < corrupt)) && break
  sleep 0.01
done
if grep -q "on-demand snapshot done" job.err; then
  bad "the re-snapshot finished before the SIGKILL: too fast to test the resume"
fi
kill -KILL "$job"
wait "$job" 2>/dev/null
start_job
wait_log "on-demand snapshot resumed from the saved ranges" 1 && ok ||
  { bad "the restart did not resume the on-demand snapshot"; tail -5 job.err; }
wait_log "on-demand snapshot done" 1 && ok || bad "the resumed on-demand snapshot did not finish"
rows=$(grep -o "on-demand snapshot done: [0-9]* rows" job.err | awk '{print $4}' | tail -1)
total=$(pg_psql -At -c "SELECT count(*) FROM t")
# (the kill comes early, when a machine under load may have done only a few chunks: any chunk
# not read again proves the resume)
[[ -n $rows ]] && ((rows < total)) && ok ||
  bad "the resumed run read ${rows:-no} rows of $total: it did not resume"
if wait_equal; then ok; else bad "sink differs from the source after the resumed re-snapshot"; fi
kill -TERM "$job"
wait "$job" 2>/dev/null

# ---- 4. latest-offset: no initial snapshot, a signal snapshots the table ---------------------
cat job.err >>job.all; : >job.err
rm -rf "$tmp/state"
write_job latest_slot latest-offset 5000
start_job
wait_log "streaming changes from slot" 1 || bad "the latest-offset job did not stream"
sink -c "DELETE FROM t WHERE id > 15000" >/dev/null
signal --data-collections public.t --filter 'id > 15000' || bad "cdcflow signal failed"
wait_log "on-demand snapshot done" 1 && ok || { bad "latest-offset: no on-demand snapshot"; tail -5 job.err; }
if wait_equal; then ok; else bad "latest-offset: sink differs after the on-demand snapshot"; fi
kill -TERM "$job"
wait "$job" 2>/dev/null

# ---- 5. the signal table must be in the publication, and exist: clear errors -----------------
pg_psql -c "CREATE PUBLICATION only_t FOR TABLE t" >/dev/null || bad "CREATE PUBLICATION only_t"
write_job pub_slot latest-offset 1000
sed -i "s/'signal-data-collection' = 'public.signals'/&, 'publication.name' = 'only_t', 'publication.autocreate' = 'false'/" job.sql
if timeout 60 "$bin" run job.sql >pub.out 2>pub.err; then bad "a publication without the signal table was accepted"; else
  grep -q 'publication "only_t" does not include table "public.signals"' pub.err &&
    grep -q 'ALTER PUBLICATION "only_t" ADD TABLE "public"."signals"' pub.err && ok ||
    { bad "no clear error for the signal table missing from the publication"; cat pub.err; }
fi
sed -i "s/'public.signals'/'public.nosuch'/" job.sql
if timeout 60 "$bin" run job.sql >pub.out 2>pub.err; then bad "a missing signal table was accepted"; else
  grep -q 'signal table "public.nosuch" does not exist' pub.err && ok ||
    { bad "no clear error for a missing signal table"; cat pub.err; }
fi
finish
