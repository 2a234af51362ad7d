#!/usr/bin/env bash
# Sourced by bench/pg_sink.sh and bench/mysql_sink.sh: what the two sink benchmarks share.
#   sink_bench_setup NAME PYMODULE N KEYS   builds bench_pg_sink (BUILD_DIR, default
#                       build-bench, Release), checks that the Debian python3 has PYMODULE,
#                       makes $tmp and writes $file (N Debezium changes over KEYS keys);
#                       sets here, bench, py, tmp, file, bytes, hz
#   sink_bench_final_py writes $tmp/final.py for the Python scripts: batches(path), the
#                       peers' reading (json.loads, lists of 5,000 (id, row tuple or None for
#                       a delete)); final_state(path) -> {id: after} and tsv(state), for the
#                       ceilings
#   sink_bench_report DB PEER CEILING ARGS...  prints the figures (see the callers)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

sink_bench_setup() {
  local name=$1 module=$2 n=$3 keys=$4
  local build=${BUILD_DIR:-$here/build-bench}
  bench=$build/bench/bench_pg_sink
  if [[ ! -x $bench ]]; then
    cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCDC_TESTS=OFF -DCDC_WERROR=OFF >/dev/null
  fi
  # always rebuild: the sink under test may have changed
  cmake --build "$build" -j"$(nproc)" --target bench_pg_sink >/dev/null
  py=${PYTHON:-/usr/bin/python3} # the Debian python3 that the python3-* packages install into
  "$py" -c "import $module" 2>/dev/null || {
    echo "$name: needs the python module $module (scripts/install-deps.sh)" >&2
    exit 1
  }
  tmp=$(mktemp -d)
  chmod 755 "$tmp"
  file=$tmp/debezium_$n.jsonl
  "$bench" gen "$file" "$n" "$keys"
  bytes=$(stat -c %s "$file")
  hz=$(getconf CLK_TCK)
}

sink_bench_final_py() {
  cat >"$tmp/final.py" <<'PY'
import json
def batches(path, size=5000):
    batch = []
    with open(path) as f:
        for line in f:
            m = json.loads(line)
            if m['op'] == 'd':
                batch.append((m['before']['id'], None))
            else:
                a = m['after']
                batch.append((a['id'], (a['id'], a['name'], a['description'], a['weight'], a['qty'])))
            if len(batch) >= size:
                yield batch
                batch = []
    if batch:
        yield batch
def final_state(path):
    state = {}
    with open(path) as f:
        for line in f:
            m = json.loads(line)
            if m['op'] == 'd':
                state.pop(m['before']['id'], None)
            else:
                a = m['after']
                state[a['id']] = a
    return state
def tsv(state):
    for k in sorted(state):
        a = state[k]
        yield f"{a['id']}\t{a['name']}\t{a['description']}\t{a['weight']!r}\t{a['qty']}\n"
PY
}

# DB PEER CEILING, then: n keys bytes cdcflow_s peer_s ceiling_s ceiling_rows rss_kb hz
# cpu_ticks_cdcflow cpu_ticks_peer cpu_ticks_ceiling md5_cdcflow md5_peer md5_ceiling
# final_rows decoded_rows
sink_bench_report() {
  "$py" - "$@" <<'PY'
import os, sys
db, peer, ceil = sys.argv[1:4]
a = sys.argv[3:]
n, keys, size = map(int, a[1:4])
c, p, k = map(float, a[4:7])
k_rows, rss, hz = int(a[7]), int(a[8]), int(a[9])
cpu_c, cpu_p, cpu_k = (int(x) / hz for x in a[10:13])
m_c, m_p, m_k = a[13:16]
rows_c, dec_rows = int(a[16]), int(a[17])
print(f"jdbc sink -> {db} benchmark: {n} Debezium changes over {keys} keys, "
      f"{size / 1e6:.1f} MB, {dec_rows} decoded rows, final table {rows_c} rows")
print(f"{'':44s} {'seconds':>8s} {'changes/s':>11s} {'server CPU s':>12s}")
label = f"cdcflow (decoder -> jdbc sink, {os.environ['MAX_ROWS']}/flush)"
print(f"{label:44s} {c:8.3f} {n / c:11,.0f} {cpu_c:12.2f}")
print(f"{peer:44s} {p:8.3f} {n / p:11,.0f} {cpu_p:12.2f}")
print(f"{ceil + ' of the final table (ceiling)':44s} {k:8.3f} {k_rows / k:11,.0f} {cpu_k:12.2f}"
      f"   (final rows/s)")
print(f"rows/s ratios: cdcflow/python {p / c:.2f}x, cdcflow/ceiling {(n / c) / (k_rows / k):.3f}x "
      f"(changes applied vs final rows loaded; wall time ceiling/cdcflow {k / c:.4f})")
print(f"cdcflow peak RSS: {rss / 1024:.1f} MB")
same = m_c == m_p == m_k
print(f"final tables identical: {'yes' if same else 'NO'} (md5 cdcflow {m_c}, python {m_p}, ceiling {m_k})")
print(f"target (>= 10x python, identical tables): {'met' if same and p / c >= 10 else 'NOT met'}")
sys.exit(0 if same else 1)
PY
}
