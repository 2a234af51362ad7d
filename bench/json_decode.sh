#!/bin/sh
# bench/json_decode.sh — builds bench/json_decode.c with -O2 (same sources as
# the library) and runs it at two sizes, to show throughput and that memory
# added while decoding does not grow with the number of messages.
#
# Usage: bench/json_decode.sh [N]    (default 200000; the second run uses 5*N)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
out=${TMPDIR:-/tmp}/cdcflow_json_decode_bench
n=${1:-200000}

core=$here/src/core
gcc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -I"$here/src" -I"$core" -I"$here/formats/json" \
    "$core/cdc_error.c" "$core/cdc_types.c" "$core/cdc_arena.c" "$core/cdc_log.c" \
    "$core/cdc_row.c" "$core/cdc_value_text.c" "$core/cdc_options.c" "$here"/formats/json/*.c \
    "$here/bench/json_decode.c" -lyajl -lm -o "$out"

echo "== in process: the json deserializer against yajl with empty callbacks"
echo "== N=$n"
"$out" "$n"
echo
echo "== N=$((n * 5))"
"$out" "$((n * 5))"

bin=${CDCFLOW_BIN:-$here/build/cdcflow}
schema='id BIGINT NOT NULL, user_id INT, seq BIGINT, name STRING, email STRING, city STRING, score DOUBLE, price DECIMAL(12, 2), created TIMESTAMP(3), active BOOLEAN, tags ARRAY<STRING>, qty INT, note STRING'
if [ ! -x "$bin" ]; then
  echo "(build cdcflow first, or set CDCFLOW_BIN, for the end-to-end figures)"
  exit 0
fi
file=${TMPDIR:-/tmp}/cdcflow_json_bench.jsonl
for size in "$n" "$((n * 5))"; do
  echo
  echo "== end to end: cdcflow decode --format json, N=$size (best of 3; peak RSS by GNU time)"
  eval "$("$out" "$size" dump "$file" | grep '^ceiling_s=')"
  for mode in count print; do
    best=999999
    rss=0
    for rep in 1 2 3; do
      if [ $mode = count ]; then
        /usr/bin/time -f '%e %M' -o "$file.time" "$bin" decode --format json --schema "$schema" --count "$file" >/dev/null
      else
        /usr/bin/time -f '%e %M' -o "$file.time" "$bin" decode --format json --schema "$schema" "$file" >/dev/null
      fi
      read -r t m <"$file.time"
      best=$(awk -v a="$best" -v b="$t" 'BEGIN { print (b < a) ? b : a }')
      rss=$m
    done
    awk -v t="$best" -v c="$ceiling_s" -v bytes="$bytes" -v msgs="$msgs" -v rss="$rss" -v mode="$mode" 'BEGIN {
      if (t < 0.01) t = 0.01
      printf "%-28s %8.3f s %10.0f msgs/s %8.1f MB/s  ratio to ceiling %.2f  peak RSS %.1f MB\n",
        (mode == "count" ? "decode into rows (--count)" : "decode + print rows"), t, msgs / t,
        bytes / t / 1e6, c / t, rss / 1024 }'
  done
  awk -v c="$ceiling_s" -v bytes="$bytes" -v msgs="$msgs" 'BEGIN {
    printf "%-28s %8.3f s %10.0f msgs/s %8.1f MB/s\n", "ceiling (yajl, empty cb)", c, msgs / c, bytes / c / 1e6 }'
done
rm -f "$file" "$file.time"
