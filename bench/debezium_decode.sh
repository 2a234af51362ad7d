#!/usr/bin/env bash
# Benchmark of the debezium-json deserializer (issue 3). Not a test: prints figures.
#
#   bench/debezium_decode.sh [N]        (N messages, default 200000; a 4x file checks memory)
#
# Uses BUILD_DIR (default: build-bench, configured Release here if missing). In one run on one
# generated file of N Debezium messages (~550 bytes: before/after/source, 50% c, 35% u, 15% d):
#   ceiling   yajl over every message with callbacks that do nothing (a fresh handle per
#             message from the formats' pooled parser; yajl-malloc = plain yajl_alloc/free)
#   decode    our deserializer into row batches, in memory (best of 3)
#   python    Python's json.loads building the same row tuples (best of 3)
#   cdcflow   `cdcflow decode --format debezium-json` decoding only (--count) and
#             printing rows to /dev/null (best of 3 each)
# then peak RSS of a streaming decode at N and 4N messages (it must stay flat, < 16 MB).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-200000}
build=${BUILD_DIR:-$here/build-bench}
bench=$build/bench/bench_debezium_decode
cdcflow=$build/cdcflow
if [[ ! -x $bench || ! -x $cdcflow ]]; then
  # a benchmark build: warnings are the CI builds' business, not a reason to measure nothing
  cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCDC_TESTS=OFF -DCDC_WERROR=OFF >/dev/null
  cmake --build "$build" -j"$(nproc)" --target cdcflow bench_debezium_decode >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
file=$tmp/debezium_$n.jsonl
big=$tmp/debezium_$((4 * n)).jsonl
"$bench" gen "$file" "$n"
"$bench" gen "$big" $((4 * n))
bytes=$(stat -c %s "$file")
schema='id INT NOT NULL, name STRING, description STRING, weight DOUBLE, quantity INT, in_stock BOOLEAN, updated_at TIMESTAMP(3), category STRING'

# python: the hand-written peer, same rows as tuples with the same conversions
cat >"$tmp/peer.py" <<'EOF'
import json, sys, time
lines = open(sys.argv[1], 'rb').read().splitlines()
def row(kind, r, origin):
    return (kind, origin, int(r['id']), r['name'], r['description'], float(r['weight']),
            int(r['quantity']), bool(r['in_stock']), int(r['updated_at']), r['category'])
def run():
    out = []
    for line in lines:
        m = json.loads(line)
        op = m['op']
        src = m['source']
        origin = src['db'] + '.' + src['table']
        if op in ('c', 'r'):
            out.append(row('+I', m['after'], origin))
        elif op == 'u':
            out.append(row('-U', m['before'], origin))
            out.append(row('+U', m['after'], origin))
        elif op == 'd':
            out.append(row('-D', m['before'], origin))
        if len(out) >= 512:
            out.clear()
best = 1e30
for _ in range(3):
    t = time.perf_counter()
    run()
    best = min(best, time.perf_counter() - t)
print(len(lines), best)
EOF

read -r y_msgs _ y_s _ < <("$bench" yajl "$file")
read -r _ _ ym_s _ < <("$bench" yajl-malloc "$file")
read -r _ _ l_s _ < <("$bench" lex "$file")
read -r d_msgs _ d_s d_rows < <("$bench" decode "$file")
read -r _ p_s < <(python3 "$tmp/peer.py" "$file")
c_s=1e30
for _ in 1 2 3; do
  t0=$(date +%s.%N)
  "$cdcflow" decode --format debezium-json --schema "$schema" "$file" >/dev/null
  t1=$(date +%s.%N)
  c_s=$(python3 -c "print(min($c_s, $t1 - $t0))")
done
k_s=1e30
for _ in 1 2 3; do
  t0=$(date +%s.%N)
  "$cdcflow" decode --format debezium-json --schema "$schema" --count "$file" >/dev/null
  t1=$(date +%s.%N)
  k_s=$(python3 -c "print(min($k_s, $t1 - $t0))")
done
read -r _ rss_n < <("$bench" rss "$file")
read -r _ rss_4n < <("$bench" rss "$big")
cli_rss() {
  /usr/bin/time -v "$cdcflow" decode --format debezium-json --schema "$schema" "$1" 2>&1 >/dev/null |
    awk '/Maximum resident set size/ {print $6}'
}
crss_n=$(cli_rss "$file")
crss_4n=$(cli_rss "$big")

python3 - "$n" "$bytes" "$y_s" "$ym_s" "$d_s" "$p_s" "$c_s" "$d_rows" "$rss_n" "$rss_4n" \
  "$crss_n" "$crss_4n" "$k_s" "$l_s" <<'EOF'
import sys
n, size = int(sys.argv[1]), int(sys.argv[2])
y, ym, d, p, c = map(float, sys.argv[3:8])
rows = int(sys.argv[8])
rss_n, rss_4n, crss_n, crss_4n = (int(x) / 1024 for x in sys.argv[9:13])
k = float(sys.argv[13])
lx = float(sys.argv[14])
mb = size / 1e6
print(f"debezium-json decode benchmark: {n} messages, {mb:.1f} MB ({size / n:.0f} bytes/message), {rows} rows")
print(f"{'':34s} {'seconds':>8s} {'msgs/s':>11s} {'MB/s':>8s} {'vs ceiling':>10s} {'vs python':>9s}")
def line(name, s):
    print(f"{name:34s} {s:8.3f} {n / s:11,.0f} {mb / s:8.1f} {y / s:10.2f} {p / s:8.2f}x")
line("yajl, empty callbacks (ceiling)", y)
line("yajl-malloc, empty callbacks", ym)
line("json_lex (ours), empty callbacks", lx)
line("debezium-json deserializer -> rows", d)
line("python json.loads -> tuples", p)
line("cdcflow decode --count", k)
line("cdcflow decode > /dev/null", c)
print(f"peak RSS, streaming deserializer:  {rss_n:.1f} MB at {n} msgs, {rss_4n:.1f} MB at {4 * n} msgs")
print(f"peak RSS, cdcflow decode:          {crss_n:.1f} MB at {n} msgs, {crss_4n:.1f} MB at {4 * n} msgs")
ok = y / d >= 0.8 and p / d >= 3 and max(rss_n, rss_4n) < 16
print(f"targets (>= 0.8 of ceiling, >= 3x python, RSS < 16 MB): {'met' if ok else 'NOT met'}")
EOF
