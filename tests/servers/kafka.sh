#!/usr/bin/env bash
# Helpers shared by the tests/integration/kafka_*.sh tests (sourced, needs $tmp set).
#
# mock_start NAME [ARGS]   starts `cdcflow kafka-mock ARGS` with its stdin on a fifo
#                          (send commands with mock_cmd) and sets $BS to its address
# mock_cmd LINE            sends one command and prints the mock's answer
# gen_changes N KEYS FILE  writes N Debezium messages "key|value" over KEYS ids to FILE
#                          and the final table ("id|v" lines, sorted) to FILE.expected
# wait_table DB EXPECTED SECONDS  waits until `SELECT id, v FROM t` equals EXPECTED
# start_run NAME SQL [ARGS]  starts `cdcflow run SQL ARGS` in the background (NAME.out,
#                          NAME.err); its pid in LAST_PID and run_pids
# stop_run PID             SIGTERM; returns its exit status
# kafka_cleanup            kills the runs left, stops the mocks, removes $tmp (not with
#                          KEEP_TMP set): the EXIT trap of a kafka test

bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
command -v kcat >/dev/null || {
  echo "FAIL kcat is not installed (scripts/install-deps.sh installs it)"
  exit 1
}

mock_pids=()
run_pids=()
mock_start() {
  local name=$1
  shift
  mkfifo "$tmp/$name.in"
  "$bin" kafka-mock "$@" <"$tmp/$name.in" >"$tmp/$name.out" 2>"$tmp/$name.err" &
  mock_pids+=($!)
  exec 7>"$tmp/$name.in" # keeps the mock's stdin open
  MOCK_OUT="$tmp/$name.out"
  for _ in $(seq 1 100); do
    [[ -s $MOCK_OUT ]] && break
    sleep 0.1
  done
  BS=$(head -1 "$MOCK_OUT")
  [[ -n $BS ]] || {
    echo "FAIL kafka-mock printed no bootstrap address"
    cat "$tmp/$name.err"
    exit 1
  }
}

mock_cmd() {
  local before
  before=$(wc -l <"$MOCK_OUT")
  echo "$1" >&7
  for _ in $(seq 1 50); do
    (($(wc -l <"$MOCK_OUT") > before)) && break
    sleep 0.1
  done
  tail -1 "$MOCK_OUT"
}

mock_stop_all() {
  exec 7>&- 2>/dev/null
  for p in "${mock_pids[@]}"; do kill -TERM "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
}

gen_changes() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
n, keys, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
state = {}
with open(path, "w") as f:
    for i in range(n):
        k = (i * 7919) % keys + 1
        if k not in state:
            msg = {"before": None, "after": {"id": k, "v": i}, "op": "c"}
            state[k] = i
        elif i % 97 == 0:
            msg = {"before": {"id": k, "v": state[k]}, "after": None, "op": "d"}
            del state[k]
        else:
            msg = {"before": {"id": k, "v": state[k]}, "after": {"id": k, "v": i}, "op": "u"}
            state[k] = i
        f.write(json.dumps({"id": k}, separators=(",", ":")) + "|" +
                json.dumps(msg, separators=(",", ":")) + "\n")
with open(path + ".expected", "w") as f:
    for k in sorted(state):
        f.write("%d|%d\n" % (k, state[k]))
PY
}

table_now() {
  sqlite3 "$1" "SELECT id, v FROM t ORDER BY id" 2>/dev/null
}

wait_table() {
  local db=$1 expected=$2 secs=$3
  for _ in $(seq 1 $((secs * 5))); do
    [[ "$(table_now "$db")" == "$(cat "$expected")" ]] && return 0
    sleep 0.2
  done
  return 1
}

# produce FILE TOPIC: keyed production of "key|value" lines
produce() {
  kcat -P -b "$BS" -t "$2" -K"|" -X partitioner=murmur2_random <"$1"
}

start_run() {
  local name=$1 sql=$2
  shift 2
  "$bin" run "$sql" "$@" >"$name.out" 2>"$name.err" &
  run_pids+=($!)
  LAST_PID=$!
}

stop_run() {
  kill -TERM "$1" 2>/dev/null
  wait "$1"
}

kafka_cleanup() {
  for p in "${run_pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  mock_stop_all
  [[ -n ${KEEP_TMP:-} ]] && echo "kept $tmp" || rm -rf "$tmp"
}
