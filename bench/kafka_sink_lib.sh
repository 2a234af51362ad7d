#!/usr/bin/env bash
# Sourced by bench/kafka_pg.sh and bench/kafka_mysql.sh (issue 17): the Kafka side they share.
#   kafka_bench_setup N KEYS PARTITIONS   builds cdcflow and bench_pg_sink (BUILD_DIR, default
#                       build-bench, Release), checks the Debian python3's modules, writes
#                       N Debezium changes over KEYS keys (bench_pg_sink gen: 50% c, 35% u,
#                       15% d), starts `cdcflow kafka-mock` with a PARTITIONS-partition topic
#                       "dbz", produces the changes with kcat keyed by id (murmur2: one key,
#                       one partition, so per-key order holds), checks they are all there and
#                       writes $tmp/expect.tsv, the final table (the last change per key);
#                       sets here, cdcflow, py, tmp, file, bytes, hz, bs (bootstrap servers)
#   kafka_bench_job NAME URL TABLE PAR [EXTRA]  writes $tmp/NAME.sql: the job a user writes
#                       (kafka + debezium-json -> jdbc with a PRIMARY KEY, no tuning), a fresh
#                       group, parallelism PAR; EXTRA adds jdbc options (credentials)
#   kafka_bench_watch NAME DB DSN TABLE CPU_FN CMD...  runs CMD through kafka_peer.py watch;
#                       sets NAME_first (ms), NAME_s, NAME_same, NAME_rss (kB), NAME_cpu (s)
#   kafka_bench_report DB   prints the table of figures of the runs c1, c2 and py
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mock_pid=

kafka_bench_setup() {
  local n=$1 keys=$2 parts=$3
  local build=${BUILD_DIR:-$here/build-bench}
  if [[ ! -f $build/CMakeCache.txt ]]; then
    cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCDC_TESTS=OFF -DCDC_WERROR=OFF >/dev/null
  fi
  # always rebuild: the pipeline under test may have changed
  cmake --build "$build" -j"$(nproc)" --target cdcflow bench_pg_sink >/dev/null
  cdcflow=$build/cdcflow
  py=${PYTHON:-/usr/bin/python3} # the Debian python3 that the python3-* packages install into
  "$py" -c "import confluent_kafka, psycopg2, MySQLdb" 2>/dev/null || {
    echo "needs python3-confluent-kafka, python3-psycopg2, python3-mysqldb (scripts/install-deps.sh)" >&2
    exit 1
  }
  tmp=$(mktemp -d)
  chmod 755 "$tmp"
  file=$tmp/changes.jsonl
  "$build/bench/bench_pg_sink" gen "$file" "$n" "$keys"
  bytes=$(stat -c %s "$file")
  hz=$(getconf CLK_TCK)
  "$cdcflow" kafka-mock --partitions "$parts" --topic dbz >"$tmp/mock.out" 2>"$tmp/mock.err" </dev/null &
  mock_pid=$!
  for _ in $(seq 1 100); do [[ -s $tmp/mock.out ]] && break; sleep 0.1; done
  bs=$(head -1 "$tmp/mock.out")
  # the key of a change is its id, the first "id" of the line (before, else after)
  awk '{ match($0, /"id":[0-9]+/); print substr($0, RSTART + 5, RLENGTH - 5) "|" $0 }' "$file" |
    kcat -P -b "$bs" -t dbz -K'|' -X partitioner=murmur2 -X linger.ms=50
  local have
  have=$(kcat -C -b "$bs" -t dbz -e -q -f 'x\n' | wc -l)
  if ((have != n)); then
    echo "the mock broker kept $have of $n messages: use more partitions (now $parts)" >&2
    exit 1
  fi
  "$py" - "$file" >"$tmp/expect.tsv" <<'PY'
import json, sys
state = {}
with open(sys.argv[1]) as f:
    for line in f:
        m = json.loads(line)
        if m['op'] == 'd':
            state.pop(m['before']['id'], None)
        else:
            state[m['after']['id']] = m['after']
for k in sorted(state):
    a = state[k]
    print(f"{a['id']}\t{a['name']}\t{a['description']}\t{a['weight']!r}\t{a['qty']}")
PY
  printf 'topic: %d Debezium changes (%.1f MB) over %d keys on %d partitions, all present; ' \
    "$n" "$(awk "BEGIN { print $bytes / 1048576 }")" "$keys" "$parts"
  printf 'expected final table: %d rows\n' "$(wc -l <"$tmp/expect.tsv")"
}

kafka_bench_stop() {
  [[ -n $mock_pid ]] && kill "$mock_pid" 2>/dev/null
  mock_pid=
}

kafka_bench_job() {
  local name=$1 url=$2 table=$3 par=$4 extra=${5:-}
  cat >"$tmp/$name.sql" <<SQL
SET 'parallelism.default' = '$par';
CREATE TABLE changes (id BIGINT NOT NULL, name STRING, description STRING, weight DOUBLE,
  qty INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'kafka', 'topic' = 'dbz', 'properties.bootstrap.servers' = '$bs',
  'properties.group.id' = 'bench-$name-$$', 'scan.startup.mode' = 'earliest-offset',
  'format' = 'debezium-json');
CREATE TABLE target (id BIGINT NOT NULL, name STRING, description STRING, weight DOUBLE,
  qty INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'jdbc', 'url' = '$url', 'table-name' = '$table'$extra);
INSERT INTO target SELECT * FROM changes;
SQL
}

kafka_bench_watch() {
  local name=$1 db=$2 dsn=$3 table=$4 cpu_fn=$5
  shift 5
  local c0 c1 first s same rss
  c0=$($cpu_fn)
  read -r first s same < <("$py" "$here/bench/kafka_peer.py" watch "$db" "$dsn" "$table" t_expect \
    "$tmp/$name.time" -- "$@")
  c1=$($cpu_fn)
  rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tmp/$name.time")
  eval "${name}_first=$first ${name}_s=$s ${name}_same=$same ${name}_rss=${rss:-0}"
  eval "${name}_cpu=$(awk "BEGIN { print ($c1 - $c0) / $hz }")"
}

kafka_bench_report() {
  local db=$1 n=$2 r
  printf '%-34s %7s %10s %6s %9s %9s %8s %10s %9s\n' "$db, $n changes" seconds changes/s ratio \
    "peak RSS" "first row" "after it" "server CPU" identical
  for r in c1 c2 py; do
    local label s first same rss cpu
    case $r in
      c1) label="cdcflow run, parallelism 1" ;;
      c2) label="cdcflow run, parallelism 2" ;;
      py) label="python peer (confluent-kafka)" ;;
    esac
    eval "s=\$${r}_s first=\$${r}_first same=\$${r}_same rss=\$${r}_rss cpu=\$${r}_cpu"
    printf '%-34s %7.2f %10.0f %5.2fx %6.1f MB %6s ms %6.2f s %8.2f s %9s\n' "$label" "$s" \
      "$(awk "BEGIN { print ($s > 0) ? $n / $s : 0 }")" \
      "$(awk "BEGIN { print ($s > 0) ? $py_s / $s : 0 }")" \
      "$(awk "BEGIN { print $rss / 1024 }")" "$first" "$(awk "BEGIN { print $s - $first / 1000 }")" \
      "$cpu" "$same"
  done
  echo "targets: >= 5x the peer, peak RSS < 64 MB, identical tables. seconds: process start to the"
  echo "table equal to the expected one; first row: process start to the first applied row (the"
  echo "consumer-group join is in it); after it: the rest; server CPU includes the watcher's polls"
}
