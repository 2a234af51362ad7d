#!/usr/bin/env bash
# The kafka source's delivery guarantee against the mock cluster (real protocol over TCP),
# with a jdbc:sqlite upsert sink whose final table must equal the expected one:
#  1. two `cdcflow run` processes in one group split a 4-partition topic; one is killed
#     with SIGKILL mid-stream, the other takes its partitions over and finishes;
#  2. one process killed with SIGKILL mid-stream and restarted (the restarted one's commits
#     overlap its reading: it logs them, and when its first rows were applied);
#  3. the broker set down and back up mid-stream (kafka-mock stdin commands).
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
tmp=$(mktemp -d)
source "${CDC_SOURCE_DIR:?}/tests/servers/kafka.sh"
trap kafka_cleanup EXIT
cd "$tmp" || exit 1

mock_start mock --partitions 4 --topic g1 --topic g2 --topic g3

# pipeline TOPIC DB: the Debezium topic materialised into a SQLite table by key
pipeline() {
  sqlite3 "$2" "CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER)"
  cat <<SQL
SET 'execution.checkpointing.interval' = '200ms';
SET 'execution.batch-size' = '100';
CREATE TABLE src (id INT NOT NULL, v BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'kafka', 'topic' = '$1', 'format' = 'debezium-json',
  'properties.bootstrap.servers' = '$BS', 'properties.group.id' = 'grp-$1',
  'properties.auto.offset.reset' = 'earliest', 'properties.session.timeout.ms' = '6000',
  'properties.heartbeat.interval.ms' = '500');
CREATE TABLE t (id INT NOT NULL, v BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'jdbc', 'url' = 'jdbc:sqlite:$2', 'table-name' = 't',
  'sink.auto-create-table' = 'true', 'sink.max-retries' = '100');
INSERT INTO t SELECT * FROM src;
SQL
}

rows_in() { sqlite3 "$1" "SELECT count(*) FROM t" 2>/dev/null || echo 0; }

wait_rows() { # DB: until the sink has written something
  for _ in $(seq 1 300); do
    (($(rows_in "$1") > 0)) && return 0
    sleep 0.1
  done
  return 1
}

# ---- 1. two processes in one group, one killed ------------------------------------------
gen_changes 20000 300 g1.txt
split -n l/10 -d g1.txt g1.part.
pipeline g1 g1.db >g1.sql
start_run a g1.sql --parallelism 2
pid_a=$LAST_PID
start_run b g1.sql --parallelism 2
pid_b=$LAST_PID
produce g1.part.00 g1
wait_rows g1.db || bad "group: nothing arrived in the sink"
for i in 01 02 03 04; do
  produce g1.part.$i g1
  sleep 0.3
done
kill -KILL "$pid_a"
wait "$pid_a" 2>/dev/null
for i in 05 06 07 08 09; do
  produce g1.part.$i g1
  sleep 0.3
done
if wait_table g1.db g1.txt.expected 120; then ok; else
  bad "group: the survivor did not reach the expected table"
  diff <(table_now g1.db) g1.txt.expected | head -5
  tail -5 b.err
fi
if stop_run "$pid_b"; then ok; else
  bad "group: the survivor did not exit 0 on SIGTERM"
  tail -5 b.err
fi
if grep -q "error" b.err; then
  bad "group: the survivor reported an error"
  grep error b.err | head -3
else ok; fi

# ---- 2. one process killed and restarted -------------------------------------------------
gen_changes 20000 300 g2.txt
split -n l/10 -d g2.txt g2.part.
pipeline g2 g2.db >g2.sql
start_run c g2.sql
pid_c=$LAST_PID
for i in 00 01 02 03 04; do
  produce g2.part.$i g2
  sleep 0.2
done
wait_rows g2.db || bad "restart: nothing arrived in the sink"
kill -KILL "$pid_c"
wait "$pid_c" 2>/dev/null
for i in 05 06 07 08 09; do produce g2.part.$i g2; done
start_run d g2.sql --log-level debug
pid_d=$LAST_PID
if wait_table g2.db g2.txt.expected 120; then ok; else
  bad "restart: the restarted process did not reach the expected table"
  diff <(table_now g2.db) g2.txt.expected | head -5
  tail -5 d.err
fi
if stop_run "$pid_d"; then ok; else bad "restart: exit status on SIGTERM"; fi
# kafka + jdbc offer the overlapped commit: the job read on while its flushes committed, and
# says when its first rows were applied
if grep -q 'durable and committed .* after the commit point (read on meanwhile)' d.err &&
  grep -q 'first rows applied after [0-9]* ms' d.err; then ok; else
  bad "restart: no overlapped commit or no 'first rows applied' line in the job's log"
  grep -m3 'durable' d.err
fi

# ---- 3. broker down and back up ------------------------------------------------------------
gen_changes 20000 300 g3.txt
split -n l/10 -d g3.txt g3.part.
pipeline g3 g3.db >g3.sql
start_run e g3.sql --parallelism 2
pid_e=$LAST_PID
for i in 00 01 02 03 04; do produce g3.part.$i g3; done
wait_rows g3.db || bad "broker: nothing arrived in the sink"
answer=$(mock_cmd "down 1")
[[ $answer == ok ]] && ok || bad "broker: 'down 1' answered \"$answer\""
sleep 3
if kill -0 "$pid_e" 2>/dev/null; then ok; else bad "broker: the job exited while the broker was down"; fi
answer=$(mock_cmd "up 1")
[[ $answer == ok ]] && ok || bad "broker: 'up 1' answered \"$answer\""
for i in 05 06 07 08 09; do produce g3.part.$i g3; done
if wait_table g3.db g3.txt.expected 120; then ok; else
  bad "broker: the job did not reach the expected table after the broker came back"
  diff <(table_now g3.db) g3.txt.expected | head -5
  tail -5 e.err
fi
if stop_run "$pid_e"; then ok; else bad "broker: exit status on SIGTERM"; fi
answer=$(mock_cmd "down 9")
[[ $answer == error:* ]] && ok || bad "mock: 'down 9' of 1 broker answered \"$answer\""

echo "kafka_group: $pass passed, $fail failed"
((fail == 0))
