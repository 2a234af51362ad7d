#!/usr/bin/env bash
# An OVER aggregation's state survives a restart (issue 20): events on Kafka (the local mock
# broker) read in two bounded runs with one --state-dir; the second run's frames (ROWS BETWEEN
# 2 PRECEDING AND CURRENT ROW per key) hold the rows of the first run, which are not read again.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
tmp=$(mktemp -d)
source "${CDC_SOURCE_DIR:?}/tests/servers/kafka.sh"
trap 'mock_stop_all; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
mock_start mock --partitions 1 --topic ev

printf '%s\n' 'x|{"k":"x","v":1,"ts":"2024-01-01 10:00:00"}' \
  'x|{"k":"x","v":2,"ts":"2024-01-01 10:01:00"}' 'y|{"k":"y","v":5,"ts":"2024-01-01 10:02:00"}' >c1
printf '%s\n' 'x|{"k":"x","v":4,"ts":"2024-01-01 10:05:00"}' \
  'y|{"k":"y","v":6,"ts":"2024-01-01 10:06:00"}' 'x|{"k":"x","v":8,"ts":"2024-01-01 10:07:00"}' >c2
cat >job.sql <<SQL
CREATE TABLE ev (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'kafka', 'topic' = 'ev', 'properties.bootstrap.servers' = '$BS',
  'properties.group.id' = 'g', 'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE out (k STRING, v INT, s INT, c BIGINT) WITH ('connector' = 'print');
INSERT INTO out SELECT k, v, SUM(v) OVER w, COUNT(*) OVER w FROM ev
  WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW);
SQL

produce c1 ev
"$bin" run job.sql --state-dir "$tmp/state" >o1 2>e1 && ok || bad "run 1 failed: $(tail -3 e1)"
[[ "$(cat o1)" == "$(printf '%s\n' '+I[x, 1, 1, 1]' '+I[x, 2, 3, 2]' '+I[y, 5, 5, 1]')" ]] && ok ||
  bad "run 1: $(cat o1)"
produce c2 ev
"$bin" run job.sql --state-dir "$tmp/state" >o2 2>e2 && ok || bad "run 2 failed: $(tail -3 e2)"
# x: 1, 2 | 4 -> 7 (3 rows), 2, 4 | 8 -> 14; y: 5 | 6 -> 11 (2 rows)
[[ "$(cat o2)" == "$(printf '%s\n' '+I[x, 4, 7, 3]' '+I[x, 8, 14, 3]' '+I[y, 6, 11, 2]')" ]] && ok ||
  bad "run 2 (frames from the state of run 1): $(cat o2)"

echo "over_restart: $pass passed, $fail failed"
((fail == 0))
