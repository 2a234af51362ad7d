#!/usr/bin/env bash
# Benchmark of the kafka source (issue 6). Not a test: prints figures.
#
#   bench/kafka_consume.sh [N] [PARTITIONS]     (default 500000 messages over 64 partitions)
#
# Uses BUILD_DIR (default: build-bench, configured Release here if missing). In one run:
# starts `cdcflow kafka-mock`, fills one topic with N Debezium messages (~550 bytes, the
# generator of bench/debezium_decode.sh) produced by kcat with keys, so they spread evenly
# over the partitions (the mock keeps only ~5 MB per partition: 64 partitions hold ~1.3M
# such messages), checks that every produced message is still there, then measures
#   kcat      `kcat -C -e` of the whole topic into /dev/null (the consume ceiling)
#   cdcflow   `cdcflow run`: kafka/debezium-json -> blackhole, scan.bounded.mode=latest-offset
#   cdcflow2  the same with --parallelism 2 (two consumers, two decoding threads)
# each best of 3, with msgs/s, peak RSS (/usr/bin/time -v) and the ratio cdcflow/kcat.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-500000}
parts=${2:-64}
build=${BUILD_DIR:-$here/build-bench}
gen=$build/bench/bench_debezium_decode
cdcflow=$build/cdcflow
if [[ ! -x $gen || ! -x $cdcflow ]]; then
  cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCDC_TESTS=OFF -DCDC_WERROR=OFF >/dev/null
  cmake --build "$build" -j"$(nproc)" --target cdcflow bench_debezium_decode >/dev/null
fi
tmp=$(mktemp -d)
mock_pid=
trap '[[ -n $mock_pid ]] && kill $mock_pid 2>/dev/null; rm -rf "$tmp"' EXIT
"$gen" gen "$tmp/msgs.jsonl" "$n" >/dev/null
awk '{ print NR "|" $0 }' "$tmp/msgs.jsonl" >"$tmp/keyed.txt"
bytes=$(stat -c %s "$tmp/msgs.jsonl")

"$cdcflow" kafka-mock --partitions "$parts" --topic dbz >"$tmp/mock.out" 2>"$tmp/mock.err" </dev/null &
mock_pid=$!
for _ in $(seq 1 100); do [[ -s $tmp/mock.out ]] && break; sleep 0.1; done
bs=$(head -1 "$tmp/mock.out")
kcat -P -b "$bs" -t dbz -K'|' -X partitioner=murmur2_random -X linger.ms=50 <"$tmp/keyed.txt"
have=$(kcat -C -b "$bs" -t dbz -e -q -f 'x\n' | wc -l)
if ((have != n)); then
  echo "the mock kept $have of $n messages: use more partitions (now $parts)" >&2
  exit 1
fi
printf 'topic: %d Debezium messages (%d MB), %d partitions, all present\n' "$n" \
  $((bytes / 1048576)) "$parts"

cat >"$tmp/run.sql" <<SQL
CREATE TABLE src (id INT NOT NULL, name STRING, description STRING, weight DOUBLE, quantity INT,
  in_stock BOOLEAN, updated_at TIMESTAMP(3), category STRING) WITH (
  'connector' = 'kafka', 'topic' = 'dbz', 'properties.bootstrap.servers' = '$bs',
  'format' = 'debezium-json', 'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset');
CREATE TABLE sink (id INT NOT NULL, name STRING, description STRING, weight DOUBLE, quantity INT,
  in_stock BOOLEAN, updated_at TIMESTAMP(3), category STRING) WITH ('connector' = 'blackhole');
INSERT INTO sink SELECT * FROM src;
SQL

# measure NAME CMD...: best wall time of 3 and its peak RSS, in globals
measure() {
  local name=$1 best="" rss=""
  shift
  for _ in 1 2 3; do
    /usr/bin/time -v -o "$tmp/time.txt" "$@" >/dev/null 2>"$tmp/$name.err"
    local wall kb
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0;
      for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$tmp/time.txt")
    kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tmp/time.txt")
    if [[ -z $best ]] || awk "BEGIN { exit !($wall < $best) }"; then
      best=$wall
      rss=$kb
    fi
  done
  printf '%-9s %8.2f s  %10.0f msgs/s  peak RSS %6.1f MB\n' "$name" "$best" \
    "$(awk "BEGIN { print $n / $best }")" "$(awk "BEGIN { print $rss / 1024 }")"
  eval "${name}_s=$best"
}

measure kcat kcat -C -b "$bs" -t dbz -e -q -o beginning
measure cdcflow "$cdcflow" run "$tmp/run.sql"
measure cdcflow2 "$cdcflow" run --parallelism 2 "$tmp/run.sql"
printf 'ratio cdcflow/kcat: %.2f (target >= 0.70); with --parallelism 2: %.2f\n' \
  "$(awk "BEGIN { print $kcat_s / $cdcflow_s }")" "$(awk "BEGIN { print $kcat_s / $cdcflow2_s }")"
