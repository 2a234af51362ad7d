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
# SELECT * ORDER BY id). Server CPU is the utime+stime delta of the postmaster and its
# children, live (checkpointer, WAL writer, the backend) and reaped.
set -euo pipefail
n=${1:-1000000}
export MAX_ROWS=${MAX_ROWS:-5000}
keys=${2:-100000}
# shellcheck source=pg_sink_lib.sh
source "$(dirname "$0")/pg_sink_lib.sh"
sink_bench_setup pg_sink psycopg2 "$n" "$keys"
# shellcheck source=../tests/servers/postgres.sh
source "$here/tests/servers/postgres.sh"
pg_start bench || exit 1
trap '[[ -n ${KEEP:-} ]] && { echo "kept $tmp port $PG_PORT"; sleep "$KEEP"; }; pg_stop; rm -rf "$tmp"' EXIT
ddl='(id BIGINT PRIMARY KEY, name TEXT, description TEXT, weight DOUBLE PRECISION, qty INTEGER)'
pg_psql -c "CREATE TABLE t $ddl; CREATE TABLE t_py $ddl; CREATE TABLE t_copy $ddl"
dsn="host=127.0.0.1 port=$PG_PORT dbname=$PG_DB user=postgres"

# (a) cdcflow
cpu0=$(pg_server_ticks)
/usr/bin/time -f %M -o "$tmp/rss" "$bench" run "$file" "$PG_URL?user=postgres" >"$tmp/c.out"
cpu1=$(pg_server_ticks)
read -r c_msgs c_rows c_s <"$tmp/c.out"
c_rss=$(cat "$tmp/rss")

# (b) the Python peer
sink_bench_final_py
cat >"$tmp/peer.py" <<'EOF'
import sys, time
from final import batches
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
for batch in batches(path):
    apply(batch)
conn.close()
print(time.perf_counter() - t0)
EOF
cpu2=$(pg_server_ticks)
p_s=$("$py" "$tmp/peer.py" "$file" "$dsn")
cpu3=$(pg_server_ticks)

# (c) the ceiling: COPY of the final state
cat >"$tmp/copy.py" <<'EOF'
import io, sys, time
import psycopg2
from final import final_state, tsv
path, dsn = sys.argv[1], sys.argv[2]
state = final_state(path)
buf = io.StringIO()
buf.writelines(tsv(state))
buf.seek(0)
conn = psycopg2.connect(dsn)
cur = conn.cursor()
t0 = time.perf_counter()
cur.copy_expert("COPY t_copy FROM STDIN", buf)
conn.commit()
print(time.perf_counter() - t0, len(state))
conn.close()
EOF
cpu4=$(pg_server_ticks)
read -r k_s k_rows < <("$py" "$tmp/copy.py" "$file" "$dsn")
cpu5=$(pg_server_ticks)

sum() { pg_psql -At -c "SELECT * FROM $1 ORDER BY id" | md5sum | cut -d' ' -f1; }
m_c=$(sum t)
m_p=$(sum t_py)
m_k=$(sum t_copy)
rows_c=$(pg_psql -At -c 'SELECT count(*) FROM t')

sink_bench_report "PostgreSQL 15" "python json + psycopg2 execute_values" COPY \
  "$n" "$keys" "$bytes" "$c_s" "$p_s" "$k_s" "$k_rows" "$c_rss" "$hz" \
  "$((cpu1 - cpu0))" "$((cpu3 - cpu2))" "$((cpu5 - cpu4))" "$m_c" "$m_p" "$m_k" "$rows_c" \
  "$c_rows"
