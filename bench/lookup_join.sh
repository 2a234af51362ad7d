#!/usr/bin/env bash
# Lookup-join throughput: N datagen rows (keys uniform over K) joined with a dim table of K
# rows through the jdbc connector into a blackhole, without a cache (one prepared query per
# row), with a PARTIAL cache holding every key, and with one holding a tenth of them (LRU
# evictions); plus the same stream without the join (the ceiling).
#   bench/lookup_join.sh [N] [K]        (CDCFLOW_BIN, default build/cdcflow)
#   DB=postgres|mariadb bench/lookup_join.sh ...   against a local server started here
#                                                  (tests/servers/*.sh; default DB=sqlite)
set -euo pipefail
n=${1:-1000000}
k=${2:-10000}
bin=${CDCFLOW_BIN:-$(cd "$(dirname "$0")/.." && pwd)/build/cdcflow}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$(cd "$(dirname "$0")/.." && pwd)
cd "$tmp"
db=${DB:-sqlite}
auth=""
case $db in
sqlite)
  url="jdbc:sqlite:$tmp/dim.db"
  sqlite3 dim.db "CREATE TABLE dim (k INTEGER PRIMARY KEY, name TEXT, price TEXT);
    WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i + 1 < $k)
    INSERT INTO dim SELECT i, 'name-' || i, printf('%d.%02d', i, i % 100) FROM c;" ;;
postgres)
  # shellcheck source=../tests/servers/postgres.sh
  source "$src/tests/servers/postgres.sh"
  pg_start cdcflow >/dev/null
  trap 'pg_stop; rm -rf "$tmp"' EXIT
  url=$PG_URL
  auth=", 'username' = 'postgres'"
  pg_psql -c "CREATE TABLE dim (k INT PRIMARY KEY, name TEXT, price NUMERIC(10, 2));
    INSERT INTO dim SELECT i, 'name-' || i, i + (i % 100) / 100.0 FROM generate_series(0, $k - 1) i" ;;
mariadb)
  # shellcheck source=../tests/servers/mariadb.sh
  source "$src/tests/servers/mariadb.sh"
  my_start cdcflow >/dev/null
  trap 'my_stop; rm -rf "$tmp"' EXIT
  url=$MY_URL
  auth=", 'username' = 'writer', 'password' = '$MY_PASSWORD'"
  my_sql -e "CREATE TABLE dim (k INT PRIMARY KEY, name VARCHAR(40), price DECIMAL(10, 2));
    INSERT INTO dim SELECT seq, CONCAT('name-', seq), seq + (seq % 100) / 100.0 FROM seq_0_to_$((k - 1))" ;;
*)
  echo "DB must be sqlite, postgres or mariadb" >&2
  exit 2 ;;
esac

run() { # label cache-options join(yes/no)
  local opts=$2 query
  if [[ $3 == yes ]]; then
    query="SELECT g.id, d.name, d.price FROM gen AS g JOIN dim FOR SYSTEM_TIME AS OF g.pt AS d ON d.k = g.key"
  else
    query="SELECT g.id, CAST(NULL AS STRING), CAST(NULL AS DECIMAL(10, 2)) FROM gen AS g"
  fi
  cat >job.sql <<SQL
CREATE TABLE gen (id BIGINT NOT NULL, key INT, pt AS PROCTIME()) WITH ('connector' = 'datagen',
  'number-of-rows' = '$n', 'rows-per-second' = '1000000000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1',
  'fields.id.end' = '$n', 'fields.key.min' = '0', 'fields.key.max' = '$((k - 1))', 'seed' = '1');
CREATE TABLE dim (k INT, name STRING, price DECIMAL(10, 2)) WITH ('connector' = 'jdbc',
  'url' = '$url', 'table-name' = 'dim' $auth $opts);
CREATE TABLE sink (id BIGINT NOT NULL, name STRING, price DECIMAL(10, 2)) WITH ('connector' = 'blackhole');
INSERT INTO sink $query;
SQL
  local t0 t1
  t0=$(date +%s.%N)
  /usr/bin/time -f "%M" -o rss.txt "$bin" run job.sql
  t1=$(date +%s.%N)
  awk -v l="$1" -v a="$t0" -v b="$t1" -v n="$n" -v rss="$(cat rss.txt)" \
    'BEGIN { s = b - a; printf "%-44s %7.3f s %11.0f rows/s  peak RSS %5.1f MB\n", l, s, n / s, rss / 1024 }'
}

echo "lookup join: $n rows, keys uniform over $k, $db dim of $k rows, parallelism 1"
run "no join (ceiling)" "" no
run "lookup.cache NONE (a query per row)" ", 'lookup.cache' = 'NONE'" yes
run "PARTIAL, max-rows = $k (all keys)" ", 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '$k'" yes
run "PARTIAL, max-rows = $((k / 10)) (LRU evictions)" ", 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '$((k / 10))'" yes
