#!/usr/bin/env bash
# Benchmark of the jdbc sink against MariaDB (issue 5, "Speed"). Not a test: prints figures.
#
#   bench/mysql_sink.sh [N] [KEYS]   (N Debezium changes, default 1000000, over KEYS keys,
#                                     default 100000; MAX_ROWS=N sets the cdcflow sink's
#                                     sink.buffer-flush.max-rows, default 5000)
#
# Uses BUILD_DIR (default: build-bench, configured Release here if missing) and a throwaway
# MariaDB 10.11 from tests/servers/mariadb.sh. In one run on one generated file of N
# Debezium messages (bench_pg_sink gen: 50% c, 35% u, 15% d) for t(id BIGINT PK, name,
# description, weight, qty), each into its own empty InnoDB table:
#   cdcflow   bench_pg_sink run: debezium-json decoder -> jdbc sink (jdbc:mysql) through
#             the C API, sink.buffer-flush.max-rows $MAX_ROWS (peak RSS from GNU time)
#   python    json + MySQLdb (python3-mysqldb): batches of 5,000 changes, last change per
#             key, DELETE ... WHERE id IN (...) and executemany of INSERT ... ON DUPLICATE
#             KEY UPDATE (which MySQLdb sends as one multi-row INSERT per batch)
#   load      the final state computed in Python from the file, LOAD DATA LOCAL INFILE into
#             an empty table (the ceiling; only the LOAD DATA is timed)
# The three final tables must be identical (md5 of SELECT * ORDER BY id). Server CPU is the
# mariadbd process's utime+stime delta.
set -euo pipefail
n=${1:-1000000}
export MAX_ROWS=${MAX_ROWS:-5000}
keys=${2:-100000}
# shellcheck source=pg_sink_lib.sh
source "$(dirname "$0")/pg_sink_lib.sh"
sink_bench_setup mysql_sink MySQLdb "$n" "$keys"
# shellcheck source=../tests/servers/mariadb.sh
source "$here/tests/servers/mariadb.sh"
my_start bench || exit 1
trap 'my_stop; rm -rf "$tmp"' EXIT
ddl='(id BIGINT PRIMARY KEY, name TEXT, description TEXT, weight DOUBLE, qty INT) ENGINE=InnoDB'
my_sql -e "CREATE TABLE t $ddl; CREATE TABLE t_py $ddl; CREATE TABLE t_load $ddl"

server_cpu() { awk '{print $14 + $15}' "/proc/$MY_PID/stat"; }

# (a) cdcflow
cpu0=$(server_cpu)
SINK_USERNAME=writer SINK_PASSWORD=$MY_PASSWORD /usr/bin/time -f %M -o "$tmp/rss" \
  "$bench" run "$file" "$MY_URL" >"$tmp/c.out"
cpu1=$(server_cpu)
read -r c_msgs c_rows c_s <"$tmp/c.out"
c_rss=$(cat "$tmp/rss")

# (b) the Python peer
sink_bench_final_py
cat >"$tmp/peer.py" <<'PY'
import sys, time
from final import batches
import MySQLdb
path, port, db, password = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
t0 = time.perf_counter()
conn = MySQLdb.connect(host='127.0.0.1', port=port, user='writer', passwd=password, db=db,
                       charset='utf8mb4')
cur = conn.cursor()
UPSERT = ("INSERT INTO t_py (id, name, description, weight, qty) VALUES (%s, %s, %s, %s, %s) "
          "ON DUPLICATE KEY UPDATE name = VALUES(name), description = VALUES(description), "
          "weight = VALUES(weight), qty = VALUES(qty)")
def apply(batch):
    last = {}
    for key, row in batch:
        last[key] = row
    ups = [r for r in last.values() if r is not None]
    dels = [k for k, r in last.items() if r is None]
    if dels:
        cur.execute("DELETE FROM t_py WHERE id IN (%s)" % ", ".join(["%s"] * len(dels)), dels)
    if ups:
        cur.executemany(UPSERT, ups)
    conn.commit()
for batch in batches(path):
    apply(batch)
conn.close()
print(time.perf_counter() - t0)
PY
cpu2=$(server_cpu)
p_s=$("$py" "$tmp/peer.py" "$file" "$MY_PORT" "$MY_DB" "$MY_PASSWORD")
cpu3=$(server_cpu)

# (c) the ceiling: LOAD DATA of the final state
cat >"$tmp/load.py" <<'PY'
import sys, time
import MySQLdb
from final import final_state, tsv
path, port, db, password, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
state = final_state(path)
with open(out, 'w') as f:
    f.writelines(tsv(state))
conn = MySQLdb.connect(host='127.0.0.1', port=port, user='writer', passwd=password, db=db,
                       charset='utf8mb4', local_infile=1)
cur = conn.cursor()
t0 = time.perf_counter()
cur.execute("LOAD DATA LOCAL INFILE %s INTO TABLE t_load", (out,))
conn.commit()
print(time.perf_counter() - t0, len(state))
conn.close()
PY
cpu4=$(server_cpu)
read -r k_s k_rows < <("$py" "$tmp/load.py" "$file" "$MY_PORT" "$MY_DB" "$MY_PASSWORD" "$tmp/final.tsv")
cpu5=$(server_cpu)

sum() { my_sql -N -B -e "SELECT * FROM $1 ORDER BY id" | md5sum | cut -d' ' -f1; }
m_c=$(sum t)
m_p=$(sum t_py)
m_k=$(sum t_load)
rows_c=$(my_sql -N -B -e 'SELECT count(*) FROM t')

sink_bench_report "MariaDB 10.11" "python json + MySQLdb multi-row upserts" "LOAD DATA" \
  "$n" "$keys" "$bytes" "$c_s" "$p_s" "$k_s" "$k_rows" "$c_rss" "$hz" \
  "$((cpu1 - cpu0))" "$((cpu3 - cpu2))" "$((cpu5 - cpu4))" "$m_c" "$m_p" "$m_k" "$rows_c" \
  "$c_rows"
