#!/usr/bin/env bash
# kafka -> filesystem exactly once: the filesystem sink keeps the Kafka positions with the
# files (cdc_plugin.h commit_positions), so no SIGKILL, restart or move of partitions between
# processes of the group repeats or loses a row. Mock cluster over TCP, 4 partitions.
#  1. one process killed with SIGKILL four times mid-stream and restarted;
#  2. two processes of one group writing one table, one killed mid-stream and restarted;
#  3. a bounded job (scan.bounded.mode) after the fact finds nothing more to write;
#  4. the broker away longer than the session timeout: the consumer's partitions are taken
#     away without the revoke barrier, so the job commits nothing more and exits 1 with an
#     error saying so; the next run completes the table.
# Every case ends with every produced id in the visible files exactly once.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
tmp=$(mktemp -d)
source "${CDC_SOURCE_DIR:?}/tests/servers/kafka.sh"
source "${CDC_SOURCE_DIR:?}/tests/integration/lib/files_once.sh"
run_pids=()
cleanup() {
  for p in "${run_pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  mock_stop_all
  [[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp" || exit 1

mock_start mock --partitions 4 --topic e1 --topic e2 --topic e3

# pipeline TOPIC DIR [BOUNDED]: json messages into a table partitioned by p, a commit per poll
pipeline() {
  local bounded=""
  [[ -n ${3:-} ]] && bounded="'scan.bounded.mode' = 'latest-offset',"
  cat <<SQL
SET 'execution.checkpointing.interval' = '0ms';
SET 'execution.batch-size' = '40';
CREATE TABLE src (id BIGINT, p INT) WITH (
  'connector' = 'kafka', 'topic' = '$1', 'format' = 'json', $bounded
  'properties.bootstrap.servers' = '$BS', 'properties.group.id' = 'grp-$1',
  'properties.auto.offset.reset' = 'earliest', 'properties.session.timeout.ms' = '${SESSION_MS:-6000}',
  'properties.heartbeat.interval.ms' = '500');
CREATE TABLE out (id BIGINT, p INT) PARTITIONED BY (p) WITH (
  'connector' = 'filesystem', 'path' = '$tmp/$2', 'format' = 'json',
  'sink.rolling-policy.file-size' = '2kb');
INSERT INTO out SELECT * FROM src;
SQL
}

gen() { # N FILE: N json messages with ids 1..N
  python3 -c "
import sys
for i in range(1, int(sys.argv[1]) + 1): print('{\"id\":%d,\"p\":%d}' % (i, i % 5))" "$1" >"$2"
}

start_run() { # NAME SQL [ARGS]
  local name=$1 sql=$2
  shift 2
  "$bin" run "$sql" "$@" >>"$name.out" 2>>"$name.err" &
  run_pids+=($!)
  LAST_PID=$!
}

# ---- 1. killed four times, restarted ------------------------------------------------------
N=40000
gen $N e1.txt
split -n l/8 -d e1.txt e1.part.
pipeline e1 t1 >e1.sql
produce_slowly() { # TOPIC PARTS...
  local t=$1
  shift
  for f in "$@"; do
    kcat -P -b "$BS" -t "$t" <"$f"
    sleep 2
  done
}
produce_slowly e1 e1.part.0[0-7] &
prod=$!
start_k() {
  start_run k e1.sql
  job=$LAST_PID
}
kill_mid_stream 4 t1 $N start_k
wait "$prod"
start_run k e1.sql
pid=$LAST_PID
wait_visible t1 $N 90 || bad "restart: not every row arrived"
sleep 1 # a repeat would show now
kill -TERM "$pid"
wait "$pid" && ok || bad "restart: no clean exit on SIGTERM"
check_once "killed and restarted" t1 $N
# one positions file: each run absorbed those of the runs before it
n=$(ls t1/_cdcflow_positions 2>/dev/null | wc -l)
((n == 1)) && ok || bad "$n positions files under t1/_cdcflow_positions, expected 1"

no_leftovers "killed and restarted" t1

# ---- 3. a bounded job afterwards has nothing to add -----------------------------------------
pipeline e1 t1 bounded >e1b.sql
if "$bin" run e1b.sql >b.out 2>b.err; then ok; else
  bad "bounded run failed"
  tail -3 b.err
fi
check_once "bounded run after the stream" t1 $N

# ---- 2. two processes of one group, one killed ----------------------------------------------
gen $N e2.txt
split -n l/8 -d e2.txt e2.part.
pipeline e2 t2 >e2.sql
start_run a e2.sql --parallelism 2
pid_a=$LAST_PID
start_run b e2.sql
pid_b=$LAST_PID
produce_slowly e2 e2.part.0[0-7] &
prod=$!
sleep 1.5
kill -KILL "$pid_a"
wait "$pid_a" 2>/dev/null
read -r n d < <(visible t2)
((n == d)) || bad "group kill: $n rows visible but only $d distinct"
sleep 1
start_run a e2.sql --parallelism 2
pid_a=$LAST_PID
wait "$prod"
wait_visible t2 $N 90 || bad "group: not every row arrived"
sleep 1
kill -TERM "$pid_a" "$pid_b"
wait "$pid_a" && ok || bad "group: a did not exit cleanly"
wait "$pid_b" && ok || bad "group: b did not exit cleanly"
check_once "group with a member killed" t2 $N
no_leftovers "group with a member killed" t2
if grep -h "error" a.err b.err | grep -v "^$" | head -3 | grep -q .; then
  bad "group: errors reported"
  grep -h error a.err b.err | head -3
else ok; fi

# ---- 4. partitions lost (session timeout) ---------------------------------------------------
N3=8000
gen $N3 e3.txt
split -n l/2 -d e3.txt e3.part.
SESSION_MS=3000 pipeline e3 t3 >e3.sql
kcat -P -b "$BS" -t e3 <e3.part.00
start_run l e3.sql
pid=$LAST_PID
wait_visible t3 1 30 || bad "lost: nothing arrived"
kcat -P -b "$BS" -t e3 <e3.part.01
answer=$(mock_cmd "down 1")
[[ $answer == ok ]] && ok || bad "lost: 'down 1' answered \"$answer\""
# the broker comes back after 8 s (the session timed out after 3), as an outage ends
for i in $(seq 1 300); do
  kill -0 "$pid" 2>/dev/null || break
  ((i == 80)) && mock_cmd "up 1" >/dev/null
  sleep 0.1
done
((i < 80)) && mock_cmd "up 1" >/dev/null
if kill -0 "$pid" 2>/dev/null; then
  bad "lost: the job still runs 30 s after the broker went away"
  kill -KILL "$pid"
fi
wait "$pid"
code=$?
if ((code == 1)) && grep -q "took partitions from this consumer before the rows" l.err; then ok; else
  bad "lost: exit $code, expected 1 with the lost-partitions error: $(grep -v '^%' l.err | tail -3)"
fi
start_run l2 e3.sql
pid=$LAST_PID
wait_visible t3 $N3 60 || bad "lost: the next run did not complete the table"
sleep 1
kill -TERM "$pid"
wait "$pid" && ok || bad "lost: the next run did not exit cleanly"
check_once "partitions lost" t3 $N3

echo "kafka_files_exactly_once: $pass passed, $fail failed"
((fail == 0))
