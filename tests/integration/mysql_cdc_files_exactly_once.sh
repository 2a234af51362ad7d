#!/usr/bin/env bash
# mysql-cdc -> filesystem exactly once, against a real MariaDB 10.11: the reader stores the
# two-phase checkpoint id with its binlog position (--state-dir) and the runtime commits only
# at transaction ends, so a job killed with SIGKILL during the snapshot or mid-stream (while
# multi-row transactions are being written) and restarted leaves every row in the visible
# debezium-json files exactly once. A server that cannot start is a failure.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
src=${CDC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
cd "$tmp" || exit 1
# shellcheck source=../servers/mariadb.sh
source "$src/tests/servers/mariadb.sh"
source "$src/tests/integration/lib/files_once.sh"
MY_EXTRA_ARGS="--log-bin=mbin --binlog-format=ROW --binlog-row-metadata=FULL --server-id=1"
if ! my_start cdcflow; then
  bad "could not start MariaDB"
  my_stop
  rm -rf "$tmp"
  echo "mysql_cdc_files_exactly_once: $pass passed, $fail failed"
  exit 1
fi
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  my_stop
  [[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT

SNAP=20000
TXNS=40
PER=250
N=$((SNAP + TXNS * PER))
my_sql -e "GRANT REPLICATION SLAVE, BINLOG MONITOR ON *.* TO 'writer'@'%';
  CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20));
  INSERT INTO t SELECT seq, CONCAT('snap-', seq) FROM seq_1_to_$SNAP;" || bad "setup"

cat >job.sql <<SQL
SET 'execution.checkpointing.interval' = '0ms';
SET 'execution.batch-size' = '100';
CREATE TABLE src (id INT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'mysql-cdc', 'hostname' = '127.0.0.1', 'port' = '$MY_PORT',
      'username' = 'writer', 'password' = '$MY_PASSWORD', 'database-name' = 'cdcflow',
      'table-name' = 't', 'server-id' = '901');
CREATE TABLE out (id INT NOT NULL, v STRING) WITH (
  'connector' = 'filesystem', 'path' = '$tmp/out', 'format' = 'debezium-json',
  'sink.rolling-policy.file-size' = '64kb');
INSERT INTO out SELECT * FROM src;
SQL

start_job() {
  "$bin" run job.sql --state-dir "$tmp/state" >>job.out 2>>job.err &
  job=$!
  pids+=($job)
}

# ---- killed during the snapshot: nothing visible, the restart snapshots again ------------
start_job
sleep 0.3
kill -KILL "$job"
wait "$job" 2>/dev/null
read -r n d < <(visible out)
((n == d)) || bad "snapshot kill: $n rows visible, $d distinct"

# ---- transactions written while the job is killed and restarted ----------------------------
(
  for i in $(seq 0 $((TXNS - 1))); do
    lo=$((SNAP + i * PER + 1))
    hi=$((SNAP + (i + 1) * PER))
    # one transaction, several statements (several row events)
    my_sql -e "BEGIN; INSERT INTO t SELECT seq, 'a' FROM seq_${lo}_to_$((lo + PER / 2 - 1));
      INSERT INTO t SELECT seq, 'b' FROM seq_$((lo + PER / 2))_to_$hi; COMMIT;"
    # and one rolled back: nothing of it may appear
    my_sql -e "BEGIN; INSERT INTO t VALUES ($((1000000 + i)), 'rolled back'); ROLLBACK;"
    sleep 0.1
  done
) &
writer=$!
pids+=($writer)
kill_mid_stream 3 out $N start_job
wait "$writer"
start_job
wait_visible out $N 60 || bad "not every row arrived"
sleep 1 # a repeat would show now
kill -TERM "$job"
wait "$job" && ok || bad "no clean exit on SIGTERM: $(tail -3 job.err)"
check_once "killed and restarted" out $N
no_leftovers "killed and restarted" out
if grep -q $'\t[0-9]*\t[0-9]*$' state/*.mysql-cdc.pos; then ok; else
  bad "the position file holds no checkpoint id: $(cat state/*.mysql-cdc.pos)"
fi
echo "mysql_cdc_files_exactly_once: $pass passed, $fail failed"
((fail == 0))
