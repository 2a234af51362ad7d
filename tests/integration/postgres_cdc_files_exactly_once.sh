#!/usr/bin/env bash
# postgres-cdc -> filesystem exactly once, against a real PostgreSQL 15: the reader stores the
# two-phase checkpoint id with its LSN in --state-dir before the slot moves, and the runtime
# commits only at transaction ends.
#  1. a job killed with SIGKILL during the snapshot, then mid-stream three times while
#     multi-statement transactions (and rolled-back ones) are written, restarted each time:
#     every row in the visible debezium-json files exactly once;
#  2. a run that committed its snapshot and died before copying "<slot>_init" to the slot
#     (the state file says "snapshot", only "<slot>_init" exists; laid out by hand): the next
#     run finishes the copy and streams, without reading the table again.
# A server that cannot be started is a failure.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
src=${CDC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
cd "$tmp" || exit 1
# shellcheck source=../servers/postgres.sh
source "$src/tests/servers/postgres.sh"
source "$src/tests/integration/lib/files_once.sh"
if ! pg_start shop; then
  bad "could not start PostgreSQL 15"
  pg_stop
  rm -rf "$tmp"
  echo "postgres_cdc_files_exactly_once: $pass passed, $fail failed"
  exit 1
fi
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  pg_stop
  [[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT

SNAP=20000
TXNS=40
PER=250
N=$((SNAP + TXNS * PER))
pg_psql -c "CREATE TABLE t (id integer PRIMARY KEY, v text);
  INSERT INTO t SELECT g, 'snap-' || g FROM generate_series(1, $SNAP) g;
  CREATE TABLE u (id integer PRIMARY KEY, v text); INSERT INTO u VALUES (1, 'before');
  ALTER TABLE t REPLICA IDENTITY FULL; ALTER TABLE u REPLICA IDENTITY FULL;" ||
  bad "setup"

job() { # TABLE SLOT OUTDIR
  cat <<SQL
SET 'execution.checkpointing.interval' = '0ms';
SET 'execution.batch-size' = '100';
CREATE TABLE src (id INT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'postgres-cdc', 'hostname' = '127.0.0.1', 'port' = '$PG_PORT',
  'username' = 'postgres', 'database-name' = 'shop', 'table-name' = '$1', 'slot.name' = '$2');
CREATE TABLE out (id INT NOT NULL, v STRING) WITH (
  'connector' = 'filesystem', 'path' = '$tmp/$3', 'format' = 'debezium-json',
  'sink.rolling-policy.file-size' = '64kb');
INSERT INTO out SELECT * FROM src;
SQL
}

start_job() { # SQL
  "$bin" run "$1" --state-dir "$tmp/state" --log-level info >>job.out 2>>job.err &
  job=$!
  pids+=($job)
}

# ---- 1. killed in the snapshot and mid-stream -----------------------------------------------
job t t_slot out1 >t.sql
start_job t.sql
sleep 0.4
kill -KILL "$job"
wait "$job" 2>/dev/null
read -r n d < <(visible out1)
((n == d)) || bad "snapshot kill: $n rows visible, $d distinct"
(
  for i in $(seq 0 $((TXNS - 1))); do
    lo=$((SNAP + i * PER + 1))
    hi=$((SNAP + (i + 1) * PER))
    pg_psql -c "BEGIN; INSERT INTO t SELECT g, 'a' FROM generate_series($lo, $((lo + PER / 2 - 1))) g;
      INSERT INTO t SELECT g, 'b' FROM generate_series($((lo + PER / 2)), $hi) g; COMMIT;"
    pg_psql -c "BEGIN; INSERT INTO t VALUES ($((1000000 + i)), 'rolled back'); ROLLBACK;"
    sleep 0.1
  done
) &
writer=$!
pids+=($writer)
start_t() { start_job t.sql; }
kill_mid_stream 3 out1 $N start_t
wait "$writer"
start_job t.sql
wait_visible out1 $N 60 || bad "not every row arrived"
sleep 1 # a repeat would show now
kill -TERM "$job"
wait "$job" && ok || bad "no clean exit on SIGTERM: $(tail -3 job.err)"
check_once "killed and restarted" out1 $N
no_leftovers "killed and restarted" out1
if grep -Eq $'^[0-9]+\t[0-9A-F]+/[0-9A-F]+\tstream$' state/t_slot.postgres-cdc.ckpt; then ok; else
  bad "state file: $(cat state/t_slot.postgres-cdc.ckpt)"
fi

# ---- 2. the snapshot committed, the slot copy not done --------------------------------------
# (the publication covers u before the slot exists: pgoutput publishes by the catalog of then)
pg_psql -c "CREATE PUBLICATION u_pub FOR TABLE u" || bad "u: publication"
pg_psql -c "SELECT pg_create_logical_replication_slot('u_slot_init', 'pgoutput')" >/dev/null ||
  bad "creating u_slot_init"
pg_psql -c "INSERT INTO u VALUES (2, 'after')" || bad "insert into u"
printf '1\t0/0\tsnapshot\n' >state/u_slot.postgres-cdc.ckpt
job u u_slot out2 | sed "s/'slot.name' = 'u_slot'/&, 'publication.name' = 'u_pub'/" >u.sql
start_job u.sql
wait_visible out2 1 10 || bad "u: the streamed row did not come"
sleep 1
kill -TERM "$job"
wait "$job" && ok || bad "u: no clean exit: $(tail -3 job.err)"
got=$(cat out2/part-* 2>/dev/null | python3 -c "import json,sys; print([json.loads(l)['after']['id'] for l in sys.stdin])")
if [[ $got == "[2]" ]]; then ok; else bad "u: expected only the streamed row 2 (no new snapshot), got $got"; fi
if grep -q "finishing it" job.err; then ok; else bad "u: no 'finishing it' in the log"; fi
slots=$(pg_psql -At -c "SELECT string_agg(slot_name, ',' ORDER BY slot_name) FROM pg_replication_slots WHERE slot_name LIKE 'u_slot%'")
if [[ $slots == "u_slot" ]]; then ok; else bad "u: slots after the copy: $slots"; fi

echo "postgres_cdc_files_exactly_once: $pass passed, $fail failed"
((fail == 0))
