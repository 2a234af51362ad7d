#!/usr/bin/env bash
# mysql-binlog decode speed: a binlog of N row changes (default 1,000,000: N/2 inserts into a
# narrow table, then an UPDATE of N/4 rows = N/4 -U/+U pairs) written by a throwaway MariaDB
# (tests/servers/mariadb.sh); `cdcflow decode --format mysql-binlog` to /dev/null (printing
# every row, and --count) against `mariadb-binlog --verbose` on the same file. Prints rows/s
# and the ratio, each the best of RUNS (default 3) runs. cdcflow decodes on one thread, so its
# rows/s are per core. Not a test: no assertion on the figures. BINLOG_KEEP=PATH keeps a copy of
# the binlog there (for profiling: perf record ... decode --format mysql-binlog PATH).
set -euo pipefail
n=${1:-1000000}
bin=${CDCFLOW_BIN:-$(cd "$(dirname "$0")/.." && pwd)/build/cdcflow}
src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../tests/servers/mariadb.sh
source "$src/tests/servers/mariadb.sh"
MY_EXTRA_ARGS="--log-bin=mbin --binlog-format=ROW --binlog-row-metadata=FULL --server-id=1"
my_start bench >/dev/null
half=$((n / 2))
my_sql -e "CREATE TABLE t (id INT PRIMARY KEY, v INT, s VARCHAR(20));
  INSERT INTO t SELECT seq, seq * 7, CONCAT('row-', seq) FROM seq_1_to_$half;
  UPDATE t SET v = v + 1 WHERE id <= $((n / 4));
  FLUSH BINARY LOGS;"
f=$MY_DIR/data/mbin.000001
echo "binlog: $(stat -c %s "$f") bytes, $n row changes"
[[ -z ${BINLOG_KEEP:-} ]] || cp "$f" "$BINLOG_KEEP"
runs=${RUNS:-3}
t() { # label command...: the best of $runs runs (the machine may be shared)
  local s e d best=
  for _ in $(seq "$runs"); do
    s=$(date +%s.%N)
    "${@:2}" >/dev/null
    e=$(date +%s.%N)
    d=$(echo "$e - $s" | bc)
    if [[ -z $best ]] || (($(echo "$d < $best" | bc))); then best=$d; fi
  done
  echo "$1 $best"
}
rows=$("$bin" decode --format mysql-binlog --count "$f" | cut -d' ' -f1)
[[ $rows -eq $n ]] || echo "warning: cdcflow decoded $rows rows, expected $n"
read -r _ a < <(t cdcflow-print "$bin" decode --format mysql-binlog "$f")
read -r _ b < <(t cdcflow-count "$bin" decode --format mysql-binlog --count "$f")
read -r _ c < <(t mariadb-binlog mariadb-binlog --no-defaults --verbose "$f")
printf '%-44s %8.3f s %12.0f rows/s\n' "cdcflow decode (rows printed)" "$a" "$(echo "$n / $a" | bc -l)"
printf '%-44s %8.3f s %12.0f rows/s\n' "cdcflow decode --count (decoding only)" "$b" "$(echo "$n / $b" | bc -l)"
printf '%-44s %8.3f s %12.0f rows/s\n' "mariadb-binlog --verbose" "$c" "$(echo "$n / $c" | bc -l)"
printf 'ratio: cdcflow (printing) is %.1fx mariadb-binlog --verbose; decoding only %.1fx\n' \
  "$(echo "$c / $a" | bc -l)" "$(echo "$c / $b" | bc -l)"
