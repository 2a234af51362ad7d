#!/usr/bin/env bash
# Benchmark of the filesystem connector (issue 8). Not a test: prints figures.
#
#   bench/fs_scan.sh [N]        (N rows, default 1000000)
#
# Uses BUILD_DIR (default: build-bench, configured Release here if missing). On one generated
# partitioned JSON table of N rows (100 partitions p=0..99, 4 files each, ~75-byte rows):
#   cat       `cat` of every file to /dev/null: the ceiling for reading the bytes
#   read      INSERT INTO blackhole SELECT * FROM t (every row decoded, best of 3)
#   pruned    the same WHERE p < 10: 10% of the partitions, so ~10% of the time
#   none      WHERE p < 0: no partition, the fixed cost of a run (start, plan, exit)
#   read x2   the full read with parallelism 2
#   write     INSERT INTO a json filesystem table from the table (read + encode + write,
#             files fsynced and renamed), against `cat` of the same bytes into one file
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-1000000}
build=${BUILD_DIR:-$here/build-bench}
cdcflow=$build/cdcflow
if [[ ! -x $cdcflow ]]; then
  cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCDC_TESTS=OFF -DCDC_WERROR=OFF >/dev/null
  cmake --build "$build" -j2 --target cdcflow >/dev/null
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fs_scan.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
t=$tmp/t
awk -v n="$n" -v dir="$t" 'BEGIN {
  for (p = 0; p < 100; p++) system("mkdir -p " dir "/p=" p);
  for (i = 0; i < n; i++) {
    p = i % 100; f = int(i / 100) % 4;
    printf("{\"id\":%d,\"name\":\"name-%d\",\"price\":%d.%02d,\"ok\":%s}\n", i, i, i % 1000, i % 100,
           (i % 3 ? "true" : "false")) >> (dir "/p=" p "/part-" f ".json");
  }
}'
bytes=$(du -cb "$t"/p=*/part-* | tail -1 | cut -f1)
now() { date +%s.%N; }
best() { # best of 3 wall-clock seconds of "$@"
  local b="" s e d
  for _ in 1 2 3; do
    s=$(now); "$@" >/dev/null; e=$(now)
    d=$(echo "$e - $s" | bc -l)
    if [[ -z $b ]] || (($(echo "$d < $b" | bc -l))); then b=$d; fi
  done
  echo "$b"
}
ddl="CREATE TABLE t (id BIGINT, name STRING, price DECIMAL(10, 2), ok BOOLEAN, p INT) PARTITIONED BY (p)
  WITH ('connector' = 'filesystem', 'path' = '$t', 'format' = 'json');
CREATE TABLE bh (id BIGINT, name STRING, price DECIMAL(10, 2), ok BOOLEAN, p INT) WITH ('connector' = 'blackhole');"
printf '%s\nINSERT INTO bh SELECT * FROM t;\n' "$ddl" >"$tmp/read.sql"
printf '%s\nINSERT INTO bh SELECT * FROM t WHERE p < 10;\n' "$ddl" >"$tmp/pruned.sql"
printf '%s\nINSERT INTO bh SELECT * FROM t WHERE p < 0;\n' "$ddl" >"$tmp/none.sql"
printf "SET 'parallelism.default' = '2';\n%s\nINSERT INTO bh SELECT * FROM t;\n" "$ddl" >"$tmp/read2.sql"
cat >"$tmp/write.sql" <<SQL
$ddl
CREATE TABLE w (id BIGINT, name STRING, price DECIMAL(10, 2), ok BOOLEAN, p INT) PARTITIONED BY (p)
  WITH ('connector' = 'filesystem', 'path' = '$tmp/w', 'format' = 'json');
INSERT INTO w SELECT * FROM t;
SQL
cat_all() { cat "$t"/p=*/part-* >/dev/null; }
cat_write() { cat "$t"/p=*/part-* >"$tmp/catout" && sync "$tmp/catout"; }
write_once() { rm -rf "$tmp/w"; "$cdcflow" run "$tmp/write.sql"; }
t_cat=$(best cat_all)
t_read=$(best "$cdcflow" run "$tmp/read.sql")
t_pruned=$(best "$cdcflow" run "$tmp/pruned.sql")
t_none=$(best "$cdcflow" run "$tmp/none.sql")
t_read2=$(best "$cdcflow" run "$tmp/read2.sql")
t_catw=$(best cat_write)
t_write=$(best write_once)
wbytes=$(du -cb "$tmp"/w/p=*/part-* | tail -1 | cut -f1)
wfiles=$(find "$tmp/w" -name 'part-*' | wc -l)
mb=$(echo "$bytes / 1048576" | bc -l)
printf 'table: %d rows, %.1f MB in 400 files under 100 partitions (%s)\n' "$n" "$mb" "$tmp"
printf '%-34s %8.3f s %12.0f rows/s %8.1f MB/s\n' "cat (ceiling)" "$t_cat" "$(echo "$n / $t_cat" | bc -l)" "$(echo "$mb / $t_cat" | bc -l)"
printf '%-34s %8.3f s %12.0f rows/s %8.1f MB/s  %5.1f%% of cat\n' "read all (parallelism 1)" "$t_read" \
  "$(echo "$n / $t_read" | bc -l)" "$(echo "$mb / $t_read" | bc -l)" "$(echo "100 * $t_cat / $t_read" | bc -l)"
printf '%-34s %8.3f s %12.0f rows/s %8.1f MB/s\n' "read all (parallelism 2)" "$t_read2" \
  "$(echo "$n / $t_read2" | bc -l)" "$(echo "$mb / $t_read2" | bc -l)"
printf '%-34s %8.3f s  = %.1f%% of the full read\n' "WHERE p < 10 (10% of partitions)" "$t_pruned" \
  "$(echo "100 * $t_pruned / $t_read" | bc -l)"
printf '%-34s %8.3f s  (start, plan, list partitions, exit); without it: %.1f%%\n' \
  "WHERE p < 0 (no partition)" "$t_none" "$(echo "100 * ($t_pruned - $t_none) / ($t_read - $t_none)" | bc -l)"
printf '%-34s %8.3f s %12.0f rows/s %8.1f MB/s\n' "cat into one file + sync (ceiling)" "$t_catw" \
  "$(echo "$n / $t_catw" | bc -l)" "$(echo "$mb / $t_catw" | bc -l)"
printf '%-34s %8.3f s %12.0f rows/s %8.1f MB/s written  %5.1f%% of cat\n' "write (read + encode + write)" "$t_write" \
  "$(echo "$n / $t_write" | bc -l)" "$(echo "$wbytes / 1048576 / $t_write" | bc -l)" "$(echo "100 * $t_catw / $t_write" | bc -l)"
printf '%-34s %d files (one per partition per commit: every 10,000 rows or checkpoint interval)\n' "written" "$wfiles"
