#!/usr/bin/env bash
# Benchmark of the jdbc sink against PostgreSQL (issue 5, "Speed"). Not a test: prints figures.
#
#   bench/pg_sink.sh [N] [KEYS]      (N Debezium changes, default 1000000, over KEYS keys,
#                                     default 100000; MAX_ROWS=N sets the cdcflow sink's
#                                     sink.buffer-flush.max-rows, default 5000)
#
# Uses BUILD_DIR (default: build-bench, configured Release here if missing) and a throwaway
# PostgreSQL 15 from tests/servers/postgres.sh. In one run on one generated file of N
# Debezium messages (50% c, 35% u, 15% d) for t(id BIGINT PK, name, description, weight,
# qty):
#   cdcflow   bench_pg_sink: debezium-json decoder -> jdbc sink through the C API,
#             sink.buffer-flush.max-rows $MAX_ROWS, default 5000 (peak RSS from GNU time)
#   python    json + psycopg2 execute_values: batches of 5,000 changes, last change per
#             key, upserts (INSERT ... ON CONFLICT DO UPDATE) and deletes
#   copy      the final state computed in Python from the file, COPY into an empty table
#             (the ceiling; only the COPY is timed)
# Each into its own empty table; the three final tables must be identical (md5 of
# SELECT * ORDER BY id). Server CPU is the postmaster's children's utime+stime delta.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-1000000}
export MAX_ROWS=${MAX_ROWS:-5000}
keys=${2:-100000}
build=${BUILD_DIR:-$here/build-bench}
bench=$build/bench/bench_pg_sink
if [[ ! -x $bench ]]; then
  cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCDC_TESTS=OFF -DCDC_WERROR=OFF >/dev/null
fi
# always rebuild: the sink under test may have changed
cmake --build "$build" -j"$(nproc)" --target bench_pg_sink >/dev/null
py=${PYTHON:-/usr/bin/python3} # the Debian python3 that python3-psycopg2 installs into
"$py" -c 'import psycopg2' 2>/dev/null || {
  echo "pg_sink: needs python3-psycopg2 (scripts/install-deps.sh)" >&2
  exit 1
}

tmp=$(mktemp -d)
chmod 755 "$tmp"
# shellcheck source=../tests/servers/postgres.sh
source "$here/tests/servers/postgres.sh"
pg_start bench || exit 1
trap '[[ -n ${KEEP:-} ]] && { echo "kept $tmp port $PG_PORT"; sleep "$KEEP"; }; pg_stop; rm -rf "$tmp"' EXIT
file=$tmp/debezium_$n.jsonl
"$bench" gen "$file" "$n" "$keys"
bytes=$(stat -c %s "$file")
ddl='(id BIGINT PRIMARY KEY, name TEXT, description TEXT, weight DOUBLE PRECISION, qty INTEGER)'
pg_psql -c "CREATE TABLE t $ddl; CREATE TABLE t_py $ddl; CREATE TABLE t_copy $ddl"
dsn="host=127.0.0.1 port=$PG_PORT dbname=$PG_DB user=postgres"

server_cpu() { # clock ticks used by the server's processes (postmaster + children)
  local pid
  pid=$(head -1 "$PG_DIR/data/postmaster.pid")
  awk '{print $14 + $15 + $16 + $17}' "/proc/$pid/stat"
}
hz=$(getconf CLK_TCK)

# (a) cdcflow
cpu0=$(server_cpu)
/usr/bin/time -f %M -o "$tmp/rss" "$bench" run "$file" "$PG_URL?user=postgres" >"$tmp/c.out"
cpu1=$(server_cpu)
read -r c_msgs c_rows c_s <"$tmp/c.out"
c_rss=$(cat "$tmp/rss")

# (b) the Python peer
cat >"$tmp/peer.py" <<'EOF'
import json, sys, time
import psycopg2
from psycopg2.extras import execute_values
path, dsn = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
conn = psycopg2.connect(dsn)
cur = conn.cursor()
UPSERT = ("INSERT INTO t_py (id, name, description, weight, qty) VALUES %s ON CONFLICT (id) DO "
          "UPDATE SET name = EXCLUDED.name, description = EXCLUDED.description, "
          "weight = EXCLUDED.weight, qty = EXCLUDED.qty")
def apply(batch):
    # ON CONFLICT cannot touch a row twice in one statement: keep the last change per key
    last = {}
    for key, row in batch:
        last[key] = row
    ups = [r for r in last.values() if r is not None]
    dels = [(k,) for k, r in last.items() if r is None]
    if dels:
        execute_values(cur, "DELETE FROM t_py WHERE id IN (VALUES %s)", dels, page_size=5000)
    if ups:
        execute_values(cur, UPSERT, ups, page_size=5000)
    conn.commit()
batch = []
with open(path) as f:
    for line in f:
        m = json.loads(line)
        op = m['op']
        if op == 'd':
            batch.append((m['before']['id'], None))
        else:
            a = m['after']
            batch.append((a['id'], (a['id'], a['name'], a['description'], a['weight'], a['qty'])))
        if len(batch) >= 5000:
            apply(batch)
            batch = []
if batch:
    apply(batch)
conn.close()
print(time.perf_counter() - t0)
EOF
cpu2=$(server_cpu)
p_s=$("$py" "$tmp/peer.py" "$file" "$dsn")
cpu3=$(server_cpu)

# (c) the ceiling: COPY of the final state
cat >"$tmp/copy.py" <<'EOF'
import io, json, sys, time
import psycopg2
path, dsn = sys.argv[1], sys.argv[2]
state = {}
with open(path) as f:
    for line in f:
        m = json.loads(line)
        if m['op'] == 'd':
            state.pop(m['before']['id'], None)
        else:
            a = m['after']
            state[a['id']] = a
buf = io.StringIO()
for k in sorted(state):
    a = state[k]
    buf.write(f"{a['id']}\t{a['name']}\t{a['description']}\t{a['weight']!r}\t{a['qty']}\n")
buf.seek(0)
conn = psycopg2.connect(dsn)
cur = conn.cursor()
t0 = time.perf_counter()
cur.copy_expert("COPY t_copy FROM STDIN", buf)
conn.commit()
print(time.perf_counter() - t0, len(state))
conn.close()
EOF
cpu4=$(server_cpu)
read -r k_s k_rows < <("$py" "$tmp/copy.py" "$file" "$dsn")
cpu5=$(server_cpu)

sum() { pg_psql -At -c "SELECT * FROM $1 ORDER BY id" | md5sum | cut -d' ' -f1; }
m_c=$(sum t)
m_p=$(sum t_py)
m_k=$(sum t_copy)
rows_c=$(pg_psql -At -c 'SELECT count(*) FROM t')

"$py" - "$n" "$keys" "$bytes" "$c_s" "$p_s" "$k_s" "$k_rows" "$c_rss" "$hz" \
  "$((cpu1 - cpu0))" "$((cpu3 - cpu2))" "$((cpu5 - cpu4))" "$m_c" "$m_p" "$m_k" "$rows_c" \
  "$c_rows" <<'EOF'
import os, sys
n, keys, size = map(int, sys.argv[1:4])
c, p, k = map(float, sys.argv[4:7])
k_rows, rss, hz = int(sys.argv[7]), int(sys.argv[8]), int(sys.argv[9])
cpu_c, cpu_p, cpu_k = (int(x) / hz for x in sys.argv[10:13])
m_c, m_p, m_k = sys.argv[13:16]
rows_c, dec_rows = int(sys.argv[16]), int(sys.argv[17])
print(f"jdbc sink -> PostgreSQL 15 benchmark: {n} Debezium changes over {keys} keys, "
      f"{size / 1e6:.1f} MB, {dec_rows} decoded rows, final table {rows_c} rows")
print(f"{'':44s} {'seconds':>8s} {'changes/s':>11s} {'server CPU s':>12s}")
label = f"cdcflow (decoder -> jdbc sink, {os.environ['MAX_ROWS']}/flush)"
print(f"{label:44s} {c:8.3f} {n / c:11,.0f} {cpu_c:12.2f}")
print(f"{'python json + psycopg2 execute_values':44s} {p:8.3f} {n / p:11,.0f} {cpu_p:12.2f}")
print(f"{'COPY of the final table (ceiling)':44s} {k:8.3f} {k_rows / k:11,.0f} {cpu_k:12.2f}"
      f"   (final rows/s)")
print(f"rows/s ratios: cdcflow/python {p / c:.2f}x, cdcflow/copy {(n / c) / (k_rows / k):.3f}x "
      f"(changes applied vs final rows copied; wall time copy/cdcflow {k / c:.4f})")
print(f"cdcflow peak RSS: {rss / 1024:.1f} MB")
same = m_c == m_p == m_k
print(f"final tables identical: {'yes' if same else 'NO'} (md5 cdcflow {m_c}, python {m_p}, copy {m_k})")
print(f"target (>= 10x python, identical tables): {'met' if same and p / c >= 10 else 'NOT met'}")
sys.exit(0 if same else 1)
EOF
