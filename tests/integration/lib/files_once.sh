#!/usr/bin/env bash
# Helpers shared by tests/integration/*_files_exactly_once.sh (sourced; not a test of its
# own). The caller defines ok / bad NAME (count a pass / a failure).

# visible DIR: prints "rows distinct" of the ids in the visible files under DIR (hidden
# files and _-directories are skipped, as every reader of the table skips them). A line is
# a json row with "id", or a Debezium create whose "after" has it (anything else fails).
visible() {
  python3 - "$1" <<'PY'
import json, os, sys
ids = []
for root, dirs, files in os.walk(sys.argv[1]):
    dirs[:] = [d for d in dirs if not d.startswith(('_', '.'))]
    for f in files:
        if f.startswith(('_', '.')):
            continue
        with open(os.path.join(root, f)) as fh:
            for l in fh:
                m = json.loads(l)
                if "after" in m:
                    assert m["op"] == "c", l
                    m = m["after"]
                ids.append(m["id"])
print(len(ids), len(set(ids)))
PY
}

# wait_visible DIR N SECONDS: until at least N rows are visible; 1 when they never are.
wait_visible() {
  local n
  for _ in $(seq 1 $(($3 * 10))); do
    read -r n _ < <(visible "$1")
    ((n >= $2)) && return 0
    sleep 0.1
  done
  return 1
}

# kill_mid_stream TIMES DIR N START: TIMES times, runs START (a function that starts the job
# in the background and sets $job), waits until it has made more rows visible in DIR, lets
# it run a little longer and kills it with SIGKILL; checks that nothing visible repeats, and
# that at least one kill left DIR between empty and complete (N rows), else the case proves
# nothing.
kill_mid_stream() {
  local times=$1 dir=$2 total=$3 start=$4 partial=0 before n d
  for k in $(seq 1 "$times"); do
    read -r before _ < <(visible "$dir")
    "$start"
    for _ in $(seq 1 200); do
      read -r n _ < <(visible "$dir")
      ((n > before)) && break
      sleep 0.1
    done
    sleep "0.$((k * 2 + 1))"
    kill -KILL "$job"
    wait "$job" 2>/dev/null
    read -r n d < <(visible "$dir")
    ((n > before && n < total)) && partial=$((partial + 1))
    ((n == d)) || bad "kill $k: $n rows visible but only $d distinct"
  done
  ((partial > 0)) && ok || bad "no kill landed mid-stream (the case proves nothing)"
}

# check_once WHAT DIR N: every one of N ids visible exactly once.
check_once() {
  local n d
  read -r n d < <(visible "$2")
  if ((n == $3 && d == $3)); then ok; else
    bad "$1: $n rows visible, $d distinct, expected $3 once each"
  fi
}

# no_leftovers WHAT DIR: after a clean end no hidden in-progress file is left (those of the
# killed runs were removed by the next run's sweep) and no commit manifest.
no_leftovers() {
  local left
  left=$(find "$2" -name '.part-*.inprogress' | wc -l)
  ((left == 0)) && ok || bad "$1: $left hidden in-progress file(s) left in $2"
  left=$(find "$2/_cdcflow_pending" -type f 2>/dev/null | wc -l)
  ((left == 0)) && ok || bad "$1: $left manifest(s) left in $2/_cdcflow_pending"
}
